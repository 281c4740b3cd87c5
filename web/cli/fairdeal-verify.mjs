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

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { verify } from "./verify.mjs";

const USAGE = "usage: fairdeal-verify round|pair|draw SERVICE ID [--log-key VKEY]... [--pins FILE] [--list FILE] [--json]";
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

let answer;
try {
  answer = await verify({ service, kind, id, logKeys: values["log-key"], pins, list });
} catch (error) {
  usage(error.message || String(error));
}
if (values.json) {
  process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
} else {
  process.stdout.write(`${answer.verdict.toUpperCase()}: ${answer.text}\n`);
  for (const check of answer.checks) process.stdout.write(`  ${check.result ?? "-"}  ${check.name}: ${check.text}\n`);
}
process.exit(EXIT[answer.verdict] ?? 1);
