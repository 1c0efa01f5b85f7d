// @ts-check
// The web client's entry: a hash router (#/, #/game/ID, #/replay/ID/N) over the pages. The
// token never goes in a URL; pages read the player from the tab's storage (api.js).
import { api, me, setMe, leaveThisTab, ProblemError } from "./api.js";
import { h, fill, announce } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { tablePage } from "./table.js";
import { replayPage } from "./replay.js";
import { tableLife, invitationPage, mountNotices } from "./table_life.js";

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
  const linkBox = h("div.signin-link", { id: "sign-in-link" });
  fill(account,
    h("span", null, "Signed in as ", h("strong", null, player.name)),
    h("button", { type: "button", id: "make-sign-in-link", onclick: async () => {
      try {
        const made = await api.createSignInLink();
        const link = `${location.origin}${location.pathname}#/sign-in/${made.code}`;
        const field = /** @type {HTMLInputElement} */ (h("input", { id: "sign-in-link-url", readonly: true, value: link, "aria-label": "Sign-in link" }));
        fill(linkBox, h("p", null, `Open this link in another tab or on another device within ${Math.round(made.expires_in / 60)} minutes `
                                  + "to play there as you; it works once, and this tab stays signed in."), field,
          h("button", { type: "button", onclick: async () => {
            field.select();
            try { await navigator.clipboard.writeText(link); status.textContent = "Link copied."; } catch { status.textContent = "Select the link and copy it."; }
          } }, "Copy link"),
          h("button", { type: "button", onclick: () => linkBox.replaceChildren() }, "Hide"));
        field.focus();
        field.select();
      } catch (error) { status.textContent = reason(error); }
    } }, "Sign in elsewhere…"),
    h("button", { type: "button", onclick: async () => {
      try {
        const rotated = await api.rotateToken();
        setMe(rotated);
        status.textContent = "A new token is in use; the old one stopped working.";
      } catch (error) { status.textContent = reason(error); }
    } }, "Rotate token"),
    h("button", { type: "button", id: "leave-tab", onclick: () => { leaveThisTab(); renderAccount(); route(); } },
      "Sign out of this tab"),
    h("button", { type: "button", onclick: async () => {
      try { await api.revokeToken(); } catch { /* signed out here either way */ }
      setMe(null);
      renderAccount();
      route();
    } }, "Sign out everywhere (ends this token)"),
    status, linkBox);
}

/** The readable reason of an error. @param {unknown} error */
export function reason(error) {
  if (error instanceof ProblemError) return error.problem.detail || error.problem.title;
  return error instanceof Error ? error.message : String(error);
}

/** A sign-in link opened here: redeem its code, take it out of the address and the history, go to the lobby.
 * @param {string} code */
async function signInWith(code) {
  history.replaceState(null, "", "#/");
  fill(main, h("p", { role: "status" }, "Signing in…"));
  try {
    const player = await api.signIn(decodeURIComponent(code));
    setMe(player, false);
    renderAccount();
    announce(`Signed in as ${player.name}`);
    route();
  } catch (error) {
    fill(main, h("h1", null, "Sign in"), h("p.error", { role: "alert" }, `This sign-in link did not work: ${reason(error)}`),
      h("p", null, h("a", { href: "#/" }, "Go to the lobby")));
  }
}

function route() {
  if (leave) leave();
  leave = null;
  const [, page = "", id = "", step = "", code = ""] = location.hash.replace(/^#/, "").split("/");
  main.replaceChildren();
  const context = { main, renderAccount, reason };
  if (page === "sign-in" && id) { signInWith(id); return; }
  mountNotices();
  if (page === "invitation" && id && step) leave = invitationPage(context, id, step, code || null);
  else if (page === "game" && id) {
    const table = tablePage(context, id), life = tableLife(context, id);
    leave = () => { table(); life(); };
  }
  else if (page === "replay" && id) leave = replayPage(context, id, step === "" ? null : Number(step));
  else leave = lobbyPage(context);
  main.focus({ preventScroll: true });
}

window.addEventListener("hashchange", route);
window.addEventListener("error", (event) => announce(`Error: ${event.message}`));
renderAccount();
route();
