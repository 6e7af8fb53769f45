import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

export interface Bar {
  server: string;
  connections: number;
  value: number;
}

/** A grouped bar chart as SVG, rendered by Vega in Node (renderer "none": no browser, no canvas). */
export async function barChartSvg(title: string, axisTitle: string, bars: Bar[]): Promise<string> {
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values: bars },
    width: 260,
    height: 220,
    mark: { type: "bar", tooltip: true },
    encoding: {
      column: { field: "connections", type: "ordinal", title: "connections", sort: "ascending" },
      x: { field: "server", type: "nominal", title: null, axis: { labelAngle: -35, labelLimit: 260 }, sort: null },
      y: { field: "value", type: "quantitative", title: axisTitle },
      color: { field: "server", type: "nominal", legend: null, sort: null },
    },
  };
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
