// The page's worker (verify-worker.mjs) on a Node thread: what a browser's
// Worker gives it (`self`, `postMessage`, `onmessage`), and nothing else.
import { parentPort, workerData } from "node:worker_threads";

globalThis.self = globalThis;
globalThis.postMessage = (data) => parentPort.postMessage(data);
await import(workerData.url);
// Listened to once the worker's code has set `onmessage`: the port keeps
// what was sent meanwhile.
parentPort.on("message", (data) => globalThis.onmessage?.({ data }));
