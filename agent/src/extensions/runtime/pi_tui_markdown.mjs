import { notSupported } from "./pi_tui_terminal.mjs";
export class Markdown { constructor() { throw notSupported("Markdown"); } }
export class Marked { constructor() { throw notSupported("Marked"); } }
