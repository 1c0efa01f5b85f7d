// @ts-check
// A tiny DOM helper: every text goes in as text (never as HTML), so names and data from the
// server cannot inject markup.

/**
 * @param {string} tag  an element name, with optional .classes ("button.choice")
 * @param {Record<string, any> | null} [attrs]  attributes; on* keys are listeners
 * @param {...(Node | string | number | null | undefined | false | (Node | string | null | undefined | false)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name || "div");
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key === "class") element.className = [element.className, value].filter(Boolean).join(" ");
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * An SVG element.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined | false | (Node | string | null | undefined | false)[])} children
 * @returns {SVGElement}
 */
export function s(tag, attrs, ...children) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

/** @param {Element} element @param {any[]} children */
function append(element, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "object" ? child : String(child));
  }
}

/** Replace an element's children. @param {Element} element @param {...(Node | string | null | undefined | false)} children */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** "PlaceNoble" -> "Place noble"; "open_hands" -> "Open hands" */
export function words(name) {
  const spaced = String(name).replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Say something to screen readers, in one of the page's polite live regions: the prompt's
 * ("prompt-announcer"), the log's ("log-announcer"), or the page's ("announcer").
 * @param {string} text @param {string} [where] */
export function announce(text, where = "announcer") {
  const region = document.getElementById(where);
  if (!region || !text) return;
  region.textContent = "";
  // a new text node each time, so the same sentence twice is still read out
  window.setTimeout(() => { region.textContent = text; }, 30);
}
