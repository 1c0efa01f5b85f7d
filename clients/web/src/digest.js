// @ts-check
// SHA-256 in the browser (crypto.subtle) over the byte strings the server's commitments use:
// a hex string stands for its bytes, a card id for its ASCII bytes. No game rule here.

/** @param {string} hex @returns {Uint8Array} */
export function bytesOfHex(hex) {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new Error(`not lowercase hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** @param {Uint8Array} bytes */
export function hexOf(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** sha256 of the concatenated parts, in lowercase hex. @param {...Uint8Array} parts */
export async function sha256Hex(...parts) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) { all.set(part, at); at += part.length; }
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", all)));
}

/** `count` random bytes in hex (crypto.getRandomValues). @param {number} count */
export function randomHex(count) {
  return hexOf(crypto.getRandomValues(new Uint8Array(count)));
}

/** The ASCII bytes of a text such as a card id. @param {string} text */
export function bytesOfText(text) {
  return new TextEncoder().encode(text);
}
