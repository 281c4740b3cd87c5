// Screenshots of the page at phone width, compared with the references
// committed beside this file (web/tests/screenshots/*.png): what a layout
// change does to a player's first screen is seen, not only measured.
//
// What a run makes differently (ids, seeds, cards, times) is painted over
// with one colour before the comparison (`mask`), so only the layout is
// compared. FAIRDEAL_UPDATE_SCREENSHOTS=1 writes the references instead;
// review them before committing.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import pixelmatch from "pixelmatch";
import { PNG } from "pngjs";

const REFERENCES = fileURLToPath(new URL("./screenshots/", import.meta.url));

/**
 * The largest share of a screenshot's pixels that may differ from its
 * reference: anti-aliasing and hinting, not a moved block (a line of text
 * moved by one line changes far more).
 */
export const TOLERANCE = 0.01;

/** pixelmatch's per-pixel colour threshold (0 to 1). */
const THRESHOLD = 0.1;

/**
 * How two PNG images (bytes) differ: `{ share, diff }`, the share of pixels
 * that differ and a PNG marking them; `share` is 1 when the sizes differ.
 */
export function compareImages(expected, actual) {
  const want = PNG.sync.read(expected);
  const got = PNG.sync.read(actual);
  if (want.width !== got.width || want.height !== got.height) {
    return { share: 1, diff: null, why: `the size is ${got.width}×${got.height}, the reference's ${want.width}×${want.height}` };
  }
  const { width, height } = want;
  const diff = new PNG({ width, height });
  const differing = pixelmatch(want.data, got.data, diff.data, width, height, { threshold: THRESHOLD });
  return { share: differing / (width * height), diff: PNG.sync.write(diff), why: null };
}

/**
 * The page's first screen, with `mask` (selectors) painted over, compared
 * with the reference `name`.png: throws, naming the share that differs and
 * where the screenshot and the difference were written, when more than
 * TOLERANCE differs. Returns the share.
 */
export async function compareScreenshot(page, name, mask = []) {
  const shot = await page.screenshot({
    mask: mask.map((selector) => page.locator(selector)),
    maskColor: "#8a8f99",
    animations: "disabled",
    caret: "hide",
  });
  const reference = join(REFERENCES, `${name}.png`);
  if (process.env.FAIRDEAL_UPDATE_SCREENSHOTS === "1") {
    mkdirSync(REFERENCES, { recursive: true });
    writeFileSync(reference, shot);
    return 0;
  }
  if (!existsSync(reference)) {
    throw new Error(`no reference screenshot web/tests/screenshots/${name}.png: `
      + "run the page's tests with FAIRDEAL_UPDATE_SCREENSHOTS=1, look at it, and commit it");
  }
  const { share, diff, why } = compareImages(readFileSync(reference), shot);
  if (share > TOLERANCE) {
    const out = process.env.FAIRDEAL_SCREENSHOT_DIFFS || tmpdir();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${name}.actual.png`), shot);
    if (diff) writeFileSync(join(out, `${name}.diff.png`), diff);
    throw new Error(`the screenshot ${name} differs from its reference: `
      + `${why || `${(share * 100).toFixed(2)}% of its pixels (at most ${TOLERANCE * 100}%)`}; `
      + `it and the difference are in ${out}`);
  }
  return share;
}
