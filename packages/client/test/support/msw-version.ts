/** The msw major this test project resolves `msw` to: 3, or 2 in the project that aliases it to msw2. */
export const mswMajor = process.env.PLANT_STORE_MSW === "2" ? 2 : 3;

/** msw's setupServer listening with `handlers`, any request they do not handle an error (the option's name differs). */
export async function listenWithMsw(handlers: readonly unknown[]): Promise<{ close(): void }> {
  const { setupServer } = await import("msw/node");
  const server = setupServer(...(handlers as never[]));
  server.listen(mswMajor === 3 ? { onUnhandledFrame: "error" } : ({ onUnhandledRequest: "error" } as never));
  return server;
}
