// @ts-check
// How a seat is marked on every game's table: a shape as well as a colour.
import { h } from "../dom.js";

export const SEAT_SHAPES = ["●", "■", "▲", "◆", "★", "⬟"];
export const SEAT_NAMES = ["circle", "square", "triangle", "diamond", "star", "pentagon"];

/** @param {number} seat */
export function seatMark(seat) {
  return h("span", { class: `mark seat-${seat}`, "aria-hidden": "true", title: SEAT_NAMES[seat] }, SEAT_SHAPES[seat] ?? "○");
}
