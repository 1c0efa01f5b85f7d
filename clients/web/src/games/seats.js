// @ts-check
// How a seat is marked on every game's table: a shape as well as a colour. Neither is one of
// Pax Pamir's coalitions' (▲ ■ ● and green, red, gold), so a seat's tribe is never read as an army.
import { h } from "../dom.js";

export const SEAT_SHAPES = ["◆", "★", "⬟", "✚", "⬢", "✱"];
export const SEAT_NAMES = ["diamond", "star", "pentagon", "cross", "hexagon", "asterisk"];

/** @param {number} seat */
export function seatMark(seat) {
  return h("span", { class: `mark seat-${seat}`, "aria-hidden": "true", title: SEAT_NAMES[seat] }, SEAT_SHAPES[seat] ?? "○");
}
