// Editor autocomplete (mixed into Editor.prototype): asks the provider for suggestions as the
// user types "/", "@", "#" (or the provider's trigger characters) or presses Tab, and shows
// them in a SelectList under the editor.
import { isWhitespaceChar } from "./pi_tui_edit_support.mjs";
import { SelectList } from "./pi_tui_lists.mjs";

export const DEFAULT_TRIGGERS = ["@", "#"];
const SLASH_LAYOUT = { minPrimaryColumnWidth: 12, maxPrimaryColumnWidth: 32 };
const ATTACHMENT_DEBOUNCE_MS = 20;

const escapeClass = (value) => value.replace(/[\\^$.*+?()[\]{}|-]/g, "\\$&");

/** Text before the cursor ends in a trigger token ("@foo", "#bar"). */
export const triggerPattern = (chars) => new RegExp(`(?:^|[\\s])[${chars.map(escapeClass).join("")}][^\\s]*$`);

/** Tokens whose lookups are debounced (file attachments). */
export const debouncePattern = (chars) => {
	const others = chars.filter((c) => c !== "@").map(escapeClass);
	return new RegExp(`(?:^|[ \\t])(?:@(?:"[^"]*|[^\\s]*)|[${others.join("")}][^\\s]*)$`);
};

export const autocompleteMethods = {
	setAutocompleteProvider(provider) {
		this.cancelAutocomplete();
		this.autocompleteProvider = provider;
		this.setAutocompleteTriggerCharacters(provider.triggerCharacters ?? []);
	},

	setAutocompleteTriggerCharacters(chars) {
		const next = [...DEFAULT_TRIGGERS];
		for (const c of chars) {
			if (c.length !== 1 || c === "/" || isWhitespaceChar(c) || next.includes(c)) continue;
			next.push(c);
		}
		this.autocompleteTriggerCharacters = next;
		this.autocompleteTriggerPattern = triggerPattern(next);
		this.autocompleteDebouncePattern = debouncePattern(next);
	},

	// Keys while the picker is open; returns true when handled (false falls through).
	handleAutocompleteKey(data, is) {
		if (is("tui.select.cancel")) {
			this.cancelAutocomplete();
			return true;
		}
		if (is("tui.select.up") || is("tui.select.down")) {
			this.autocompleteList.handleInput(data);
			return true;
		}
		const tab = is("tui.input.tab");
		if (!tab && !is("tui.select.confirm")) return false;
		const selected = this.autocompleteList.getSelectedItem();
		if (!selected || !this.autocompleteProvider) return tab;
		this.applyCompletion(selected, this.autocompletePrefix);
		// Enter on a slash command completes it and then submits.
		const submitAfter = !tab && this.autocompletePrefix.startsWith("/");
		this.cancelAutocomplete();
		if (submitAfter) return false;
		this.changed();
		return true;
	},

	applyCompletion(item, prefix) {
		this.pushUndoSnapshot();
		this.lastAction = null;
		const result = this.autocompleteProvider.applyCompletion(this.state.lines, this.state.cursorLine, this.state.cursorCol, item, prefix);
		this.state.lines = result.lines;
		this.state.cursorLine = result.cursorLine;
		this.setCursorCol(result.cursorCol);
	},

	isSlashMenuAllowed() {
		return this.state.cursorLine === 0;
	},

	isAtStartOfMessage() {
		if (!this.isSlashMenuAllowed()) return false;
		const before = this.line().slice(0, this.state.cursorCol).trim();
		return before === "" || before === "/";
	},

	isInSlashCommandContext(textBeforeCursor) {
		return this.isSlashMenuAllowed() && textBeforeCursor.trimStart().startsWith("/");
	},

	// Exact value match, else the first value starting with the prefix, else -1.
	getBestAutocompleteMatchIndex(items, prefix) {
		if (!prefix) return -1;
		let first = -1;
		for (let i = 0; i < items.length; i++) {
			if (items[i].value === prefix) return i;
			if (first === -1 && items[i].value.startsWith(prefix)) first = i;
		}
		return first;
	},

	createAutocompleteList(prefix, items) {
		return new SelectList(items, this.autocompleteMaxVisible, this.theme.selectList, prefix.startsWith("/") ? SLASH_LAYOUT : undefined);
	},

	tryTriggerAutocomplete(explicitTab = false) {
		this.requestAutocomplete({ force: false, explicitTab });
	},

	handleTabCompletion() {
		if (!this.autocompleteProvider) return;
		const before = this.line().slice(0, this.state.cursorCol);
		if (this.isInSlashCommandContext(before) && !before.trimStart().includes(" ")) this.handleSlashCommandCompletion();
		else this.forceFileAutocomplete(true);
	},

	handleSlashCommandCompletion() {
		this.requestAutocomplete({ force: false, explicitTab: true });
	},

	forceFileAutocomplete(explicitTab = false) {
		this.requestAutocomplete({ force: true, explicitTab });
	},

	requestAutocomplete(options) {
		const provider = this.autocompleteProvider;
		if (!provider) return;
		if (options.force && provider.shouldTriggerFileCompletion && !provider.shouldTriggerFileCompletion(this.state.lines, this.state.cursorLine, this.state.cursorCol)) return;
		this.cancelAutocompleteRequest();
		const token = ++this.autocompleteStartToken;
		const delay = this.getAutocompleteDebounceMs(options);
		if (delay > 0) {
			this.autocompleteDebounceTimer = setTimeout(() => {
				this.autocompleteDebounceTimer = undefined;
				void this.startAutocompleteRequest(token, options);
			}, delay);
			return;
		}
		void this.startAutocompleteRequest(token, options);
	},

	// Requests run one after another; a newer one makes older results stale.
	async startAutocompleteRequest(token, options) {
		const previous = this.autocompleteRequestTask;
		this.autocompleteRequestTask = (async () => {
			await previous;
			if (token !== this.autocompleteStartToken || !this.autocompleteProvider) return;
			const controller = new AbortController();
			this.autocompleteAbort = controller;
			const id = ++this.autocompleteRequestId;
			await this.runAutocompleteRequest(id, controller, this.getText(), this.state.cursorLine, this.state.cursorCol, options);
		})();
		await this.autocompleteRequestTask;
	},

	getAutocompleteDebounceMs(options) {
		if (options.explicitTab || options.force) return 0;
		return this.autocompleteDebouncePattern.test(this.line().slice(0, this.state.cursorCol)) ? ATTACHMENT_DEBOUNCE_MS : 0;
	},

	async runAutocompleteRequest(id, controller, text, line, col, options) {
		if (!this.autocompleteProvider) return;
		const suggestions = await this.autocompleteProvider.getSuggestions(this.state.lines, this.state.cursorLine, this.state.cursorCol, { signal: controller.signal, force: options.force });
		if (!this.isAutocompleteRequestCurrent(id, controller, text, line, col)) return;
		this.autocompleteAbort = undefined;
		if (!suggestions || !Array.isArray(suggestions.items) || suggestions.items.length === 0) {
			this.cancelAutocomplete();
			this.requestRender();
			return;
		}
		if (options.force && options.explicitTab && suggestions.items.length === 1) {
			// Tab with a single candidate completes it directly.
			this.applyCompletion(suggestions.items[0], suggestions.prefix);
			this.changed();
			this.requestRender();
			return;
		}
		this.applyAutocompleteSuggestions(suggestions, options.force ? "force" : "regular");
		this.requestRender();
	},

	isAutocompleteRequestCurrent(id, controller, text, line, col) {
		return !controller.signal.aborted && id === this.autocompleteRequestId && this.getText() === text && this.state.cursorLine === line && this.state.cursorCol === col;
	},

	applyAutocompleteSuggestions(suggestions, state) {
		this.autocompletePrefix = suggestions.prefix;
		this.autocompleteList = this.createAutocompleteList(suggestions.prefix, suggestions.items);
		const best = this.getBestAutocompleteMatchIndex(suggestions.items, suggestions.prefix);
		if (best >= 0) this.autocompleteList.setSelectedIndex(best);
		this.autocompleteState = state;
	},

	cancelAutocompleteRequest() {
		this.autocompleteStartToken += 1;
		if (this.autocompleteDebounceTimer) {
			clearTimeout(this.autocompleteDebounceTimer);
			this.autocompleteDebounceTimer = undefined;
		}
		this.autocompleteAbort?.abort();
		this.autocompleteAbort = undefined;
	},

	clearAutocompleteUi() {
		this.autocompleteState = null;
		this.autocompleteList = undefined;
		this.autocompletePrefix = "";
	},

	cancelAutocomplete() {
		this.cancelAutocompleteRequest();
		this.clearAutocompleteUi();
	},

	isShowingAutocomplete() {
		return this.autocompleteState !== null;
	},

	updateAutocomplete() {
		if (!this.autocompleteState || !this.autocompleteProvider) return;
		this.requestAutocomplete({ force: this.autocompleteState === "force", explicitTab: false });
	},
};
