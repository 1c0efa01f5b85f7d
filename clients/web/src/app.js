// @ts-check
// The web client's entry: a hash router (#/, #/game/ID, #/replay/ID/N) over the pages. The
// token never goes in a URL; pages read the player from the tab's storage (api.js).
import { api, me, setMe, ProblemError } from "./api.js";
import { h, fill, announce } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { tablePage } from "./table.js";
import { replayPage } from "./replay.js";

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const account = /** @type {HTMLElement} */ (document.getElementById("account"));
/** @type {(() => void) | null} */
let leave = null;

export function renderAccount() {
  const player = me();
  if (!player) {
    fill(account, h("span", null, "Not signed in"));
    return;
  }
  const status = h("span.status", { role: "status" });
  fill(account,
    h("span", null, "Signed in as ", h("strong", null, player.name)),
    h("button", { type: "button", onclick: async () => {
      try {
        const rotated = await api.rotateToken();
        setMe(rotated);
        status.textContent = "A new token is in use; the old one stopped working.";
      } catch (error) { status.textContent = reason(error); }
    } }, "Rotate token"),
    h("button", { type: "button", onclick: async () => {
      try { await api.revokeToken(); } catch { /* signed out here either way */ }
      setMe(null);
      renderAccount();
      route();
    } }, "Sign out (ends this token)"),
    status);
}

/** The readable reason of an error. @param {unknown} error */
export function reason(error) {
  if (error instanceof ProblemError) return error.problem.detail || error.problem.title;
  return error instanceof Error ? error.message : String(error);
}

function route() {
  if (leave) leave();
  leave = null;
  const [, page = "", id = "", step = ""] = location.hash.replace(/^#/, "").split("/");
  main.replaceChildren();
  const context = { main, renderAccount, reason };
  if (page === "game" && id) leave = tablePage(context, id);
  else if (page === "replay" && id) leave = replayPage(context, id, step === "" ? null : Number(step));
  else leave = lobbyPage(context);
  main.focus({ preventScroll: true });
}

window.addEventListener("hashchange", route);
window.addEventListener("error", (event) => announce(`Error: ${event.message}`));
renderAccount();
route();
