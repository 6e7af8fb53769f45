import { StartFailure } from "../operator-errors.js";

/** Where a server was to listen, and the settings that say so (PORT and HOST, or METRICS_PORT and METRICS_HOST). */
export interface ListenTarget {
  port: number;
  host: string;
  portSetting: string;
  hostSetting: string;
}

/** A failed listen as the setting to mend and its likely cause. */
export function listenFailure(error: unknown, { port, host, portSetting, hostSetting }: ListenTarget): StartFailure {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const at = `${host}:${port}`;
  const options = { cause: error };
  switch (code) {
    case "EADDRINUSE":
      return new StartFailure(
        portSetting,
        `${portSetting}: ${at} is already in use: another process listens there, most likely a plant store not yet ` +
          `stopped or still in its shutdown delay (SHUTDOWN_DELAY_MS); stop it, or choose another ${portSetting}`,
        options,
      );
    case "EACCES":
      return new StartFailure(
        portSetting,
        `${portSetting}: ${at} needs privileges this process lacks; choose a port above 1023`,
        options,
      );
    case "EADDRNOTAVAIL":
      return new StartFailure(hostSetting, `${hostSetting}: ${host} is not an address of this machine`, options);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartFailure(hostSetting, `${hostSetting}: the host "${host}" was not found (${code})`, options);
    default:
      return new StartFailure(
        portSetting,
        `${portSetting}: cannot listen on ${at}: ${error instanceof Error ? error.message : String(error)}`,
        options,
      );
  }
}
