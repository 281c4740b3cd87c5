// The screenshot comparison the page's phone tests use can fail: a block
// moved by a line of text is over the tolerance, a repaint of the same
// image is not.
import assert from "node:assert/strict";
import { test } from "node:test";

import { PNG } from "pngjs";

import { TOLERANCE, compareImages } from "./screenshots.mjs";

/** A 390×844 white image with a grey block of `height` rows from row `top`. */
function screen(top, height = 40) {
  const png = new PNG({ width: 390, height: 844 });
  for (let y = 0; y < 844; y++) {
    for (let x = 0; x < 390; x++) {
      const i = (y * 390 + x) * 4;
      const grey = y >= top && y < top + height && x >= 16 && x < 374;
      png.data[i] = png.data[i + 1] = png.data[i + 2] = grey ? 0x8a : 0xff;
      png.data[i + 3] = 0xff;
    }
  }
  return PNG.sync.write(png);
}

test("the same screen compares equal", () => {
  assert.equal(compareImages(screen(100), screen(100)).share, 0);
});

test("a block moved down by one line of text is over the tolerance", () => {
  const { share } = compareImages(screen(100), screen(122));
  assert.ok(share > TOLERANCE, `${share}`);
});

test("one stray pixel row is within it", () => {
  const { share } = compareImages(screen(100, 40), screen(100, 41));
  assert.ok(share > 0 && share <= TOLERANCE, `${share}`);
});

test("another size never compares equal", () => {
  const small = new PNG({ width: 375, height: 812 });
  const { share, why } = compareImages(screen(100), PNG.sync.write(small));
  assert.equal(share, 1);
  assert.match(why, /375×812/);
});
