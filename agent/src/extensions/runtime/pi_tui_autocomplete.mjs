import { notSupported } from "./pi_tui_terminal.mjs";
export class CombinedAutocompleteProvider { constructor() { throw notSupported("CombinedAutocompleteProvider"); } }
