import { notSupported } from "./pi_tui_terminal.mjs";
export class Editor { constructor() { throw notSupported("Editor"); } }
