#!/usr/bin/env node
// fairdeal-verify: the released verifier's verdict on a round, a seed pair
// or a draw of a fairdeal service, from the command line (cli/verify.mjs:
// the page's own checks). Exit status: 0 PASS (or PASS with a warning),
// 1 FAIL, 3 not yet verifiable (look again later), 2 a usage error.
//
//   fairdeal-verify round SERVICE ROUND_ID --log-key VKEY
//   fairdeal-verify pair  SERVICE PAIR_ID  --pins pins.json
//   fairdeal-verify draw  SERVICE DRAW_ID  --log-key VKEY --list entrants.txt
//
// The log key is trusted only when given (--log-key, repeatable, or --pins,
// a file of the page's pins: { "services": {...}, "logs": {...} }); a
// service whose key is not among them fails, as in the released page.
// --witness VKEY (repeatable) with --quorum K, and --monitor VKEY
// (repeatable), are the page's "Witnesses you trust" and "Monitors you
// trust". --state FILE is what the page keeps in a browser between visits
// (the log checkpoint it saw, pins, witnesses and monitors kept): read
// first when it exists, written back after, so a log that shows this run
// another history than the last one is a FAIL here as on the page.
// --wait SECONDS: how long to look again while entries await their
// checkpoint (default 10); then the verdict is "not yet verifiable".

import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { verify } from "./verify.mjs";

const USAGE = "usage: fairdeal-verify round|pair|draw SERVICE ID [--log-key VKEY]... [--pins FILE] [--list FILE]\n"
  + "         [--witness VKEY]... [--quorum K] [--monitor VKEY]... [--state FILE] [--wait SECONDS] [--json]";
const EXIT = { pass: 0, warning: 0, fail: 1, pending: 3 };

function usage(message) {
  process.stderr.write(`fairdeal-verify: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      "log-key": { type: "string", multiple: true, default: [] },
      pins: { type: "string" },
      list: { type: "string" },
      witness: { type: "string", multiple: true, default: [] },
      quorum: { type: "string" },
      monitor: { type: "string", multiple: true, default: [] },
      state: { type: "string" },
      wait: { type: "string", default: "10" },
      json: { type: "boolean", default: false },
    },
  });
} catch (error) {
  usage(error.message);
}
const { positionals, values } = parsed;
if (positionals.length !== 3) usage(`expected a kind, a service and an id; got ${positionals.length} arguments`);
const [kind, service, id] = positionals;
if (!["round", "pair", "draw"].includes(kind)) usage(`the kind must be round, pair or draw, not ${JSON.stringify(kind)}`);
if (values.list && kind !== "draw") usage("--list is a draw's entrant list: only with draw");
const read = (flag, path) => {
  try {
    return readFileSync(path);
  } catch (error) {
    return usage(`${flag}: ${path} cannot be read (${error.code || error.message})`);
  }
};
let pins = null;
if (values.pins) {
  try {
    pins = JSON.parse(read("--pins", values.pins).toString("utf8"));
  } catch (error) {
    usage(`--pins: ${values.pins} is not JSON (${error.message})`);
  }
}
const list = values.list ? read("--list", values.list) : null;
if (!/^[0-9]{1,4}$/.test(values.wait)) usage(`--wait: a whole number of seconds from 0 to 9999, not ${JSON.stringify(values.wait)}`);
if (values.quorum !== undefined && !/^[1-9][0-9]{0,2}$/.test(values.quorum)) {
  usage(`--quorum: how many witnesses must cosign, a whole number from 1, not ${JSON.stringify(values.quorum)}`);
}
let state = null;
if (values.state && existsSync(values.state)) {
  try {
    state = JSON.parse(read("--state", values.state).toString("utf8"));
  } catch (error) {
    usage(`--state: ${values.state} is not JSON (${error.message}); it is written by this command, give a new file name`);
  }
}

let answer;
try {
  answer = await verify({ service, kind, id, logKeys: values["log-key"], pins, list, state,
    witnesses: values.witness, quorum: values.quorum === undefined ? null : Number(values.quorum),
    monitors: values.monitor, wait: Number(values.wait) * 1000 });
} catch (error) {
  usage(error.message || String(error));
}
if (values.state) {
  // Written whole, then renamed: an interrupted run leaves the last state, never half of one.
  try {
    writeFileSync(`${values.state}.new`, `${JSON.stringify(answer.state, null, 2)}\n`);
    renameSync(`${values.state}.new`, values.state);
  } catch (error) {
    process.stderr.write(`fairdeal-verify: --state: ${values.state} could not be written (${error.code || error.message})\n`);
  }
}
if (answer.verdict === "pending") {
  // The page's words say it looks again by itself; a command does not.
  answer.text = answer.text.replace(/ ?(The page (looks|reads it) again by itself|This page checks again by itself)\.?/g, "");
  answer.text += " Run this command again later (or with a longer --wait).";
}
if (values.json) {
  const { state: _kept, ...shown } = answer;
  process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
} else {
  process.stdout.write(`${answer.verdict.toUpperCase()}: ${answer.text}\n`);
  for (const check of answer.checks) {
    process.stdout.write(`  ${check.result ?? "-"}  ${check.name}${check.detail ? `: ${check.detail}` : ""}\n`);
  }
}
process.exit(EXIT[answer.verdict] ?? 1);
