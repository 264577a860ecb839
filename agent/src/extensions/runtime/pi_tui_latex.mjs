import { notSupported } from "./pi_tui_terminal.mjs";
export function renderLatex() { throw notSupported("renderLatex"); }
