// Pickers: SelectList (items with optional descriptions) and SettingsList (label/value rows
// that cycle values or open a submenu, with optional fuzzy search).
import { truncateToWidth, wrapTextWithAnsi } from "./pi_tui_ansi.mjs";
import { Input } from "./pi_tui_input.mjs";
import { fuzzyFilter, getKeybindings } from "./pi_tui_keybindings.mjs";
import { visibleWidth } from "./pi_tui_width.mjs";

const DEFAULT_PRIMARY_WIDTH = 32;
const PRIMARY_GAP = 2;
const MIN_DESCRIPTION_WIDTH = 10;

const oneLine = (text) => text.replace(/[\r\n]+/g, " ").trim();

// First index of a `maxVisible` window that keeps `selected` near the middle.
const windowStart = (selected, maxVisible, count) => Math.max(0, Math.min(selected - Math.floor(maxVisible / 2), count - maxVisible));

export class SelectList {
	items = [];
	filteredItems = [];
	selectedIndex = 0;
	maxVisible = 5;
	onSelect;
	onCancel;
	onSelectionChange;

	constructor(items, maxVisible, theme, layout = {}) {
		this.items = items;
		this.filteredItems = items;
		this.maxVisible = maxVisible;
		this.theme = theme;
		this.layout = layout;
	}

	/** Keep the items whose value starts with `filter` (case-insensitive). */
	setFilter(filter) {
		this.filteredItems = this.items.filter((item) => item.value.toLowerCase().startsWith(filter.toLowerCase()));
		this.selectedIndex = 0;
	}

	setSelectedIndex(index) {
		this.selectedIndex = Math.max(0, Math.min(index, this.filteredItems.length - 1));
	}

	invalidate() {}

	render(width) {
		const items = this.filteredItems;
		if (items.length === 0) return [this.theme.noMatch("  No matching commands")];
		const primaryWidth = this.primaryColumnWidth();
		const start = windowStart(this.selectedIndex, this.maxVisible, items.length);
		const end = Math.min(start + this.maxVisible, items.length);
		const lines = [];
		for (let i = start; i < end; i++) {
			const item = items[i];
			if (!item) continue;
			const description = item.description ? oneLine(item.description) : undefined;
			lines.push(this.renderItem(item, i === this.selectedIndex, width, description, primaryWidth));
		}
		if (start > 0 || end < items.length) {
			lines.push(this.theme.scrollInfo(truncateToWidth(`  (${this.selectedIndex + 1}/${items.length})`, width - 2, "")));
		}
		return lines;
	}

	handleInput(keyData) {
		const kb = getKeybindings();
		const count = this.filteredItems.length;
		if (kb.matches(keyData, "tui.select.up")) {
			this.selectedIndex = this.selectedIndex === 0 ? count - 1 : this.selectedIndex - 1;
			this.notifySelectionChange();
		} else if (kb.matches(keyData, "tui.select.down")) {
			this.selectedIndex = this.selectedIndex === count - 1 ? 0 : this.selectedIndex + 1;
			this.notifySelectionChange();
		} else if (kb.matches(keyData, "tui.select.confirm")) {
			const item = this.filteredItems[this.selectedIndex];
			if (item && this.onSelect) this.onSelect(item);
		} else if (kb.matches(keyData, "tui.select.cancel")) {
			this.onCancel?.();
		}
	}

	renderItem(item, selected, width, description, primaryWidth) {
		const prefix = selected ? "→ " : "  ";
		const prefixWidth = visibleWidth(prefix);
		if (description && width > 40) {
			const column = Math.max(1, Math.min(primaryWidth, width - prefixWidth - 4));
			const value = this.truncatePrimary(item, selected, Math.max(1, column - PRIMARY_GAP), column);
			const valueWidth = visibleWidth(value);
			const spacing = " ".repeat(Math.max(1, column - valueWidth));
			const remaining = width - (prefixWidth + valueWidth + spacing.length) - 2;
			if (remaining > MIN_DESCRIPTION_WIDTH) {
				const desc = truncateToWidth(description, remaining, "");
				if (selected) return this.theme.selectedText(`${prefix}${value}${spacing}${desc}`);
				return prefix + value + this.theme.description(spacing + desc);
			}
		}
		const maxWidth = width - prefixWidth - 2;
		const value = this.truncatePrimary(item, selected, maxWidth, maxWidth);
		return selected ? this.theme.selectedText(`${prefix}${value}`) : prefix + value;
	}

	primaryColumnWidth() {
		const { min, max } = this.primaryColumnBounds();
		const widest = this.filteredItems.reduce((w, item) => Math.max(w, visibleWidth(this.getDisplayValue(item)) + PRIMARY_GAP), 0);
		return Math.max(min, Math.min(widest, max));
	}

	primaryColumnBounds() {
		const a = this.layout.minPrimaryColumnWidth ?? this.layout.maxPrimaryColumnWidth ?? DEFAULT_PRIMARY_WIDTH;
		const b = this.layout.maxPrimaryColumnWidth ?? this.layout.minPrimaryColumnWidth ?? DEFAULT_PRIMARY_WIDTH;
		return { min: Math.max(1, Math.min(a, b)), max: Math.max(1, Math.max(a, b)) };
	}

	truncatePrimary(item, isSelected, maxWidth, columnWidth) {
		const text = this.getDisplayValue(item);
		const custom = this.layout.truncatePrimary;
		const value = custom ? custom({ text, maxWidth, columnWidth, item, isSelected }) : truncateToWidth(text, maxWidth, "");
		return truncateToWidth(value, maxWidth, "");
	}

	getDisplayValue(item) {
		return item.label || item.value;
	}

	notifySelectionChange() {
		const item = this.filteredItems[this.selectedIndex];
		if (item && this.onSelectionChange) this.onSelectionChange(item);
	}

	getSelectedItem() {
		return this.filteredItems[this.selectedIndex] || null;
	}
}

export class SettingsList {
	selectedIndex = 0;
	submenuComponent = null;
	submenuItemIndex = null;

	constructor(items, maxVisible, theme, onChange, onCancel, options = {}) {
		this.items = items;
		this.filteredItems = items;
		this.maxVisible = maxVisible;
		this.theme = theme;
		this.onChange = onChange;
		this.onCancel = onCancel;
		this.searchEnabled = options.enableSearch ?? false;
		if (this.searchEnabled) this.searchInput = new Input();
	}

	updateValue(id, newValue) {
		const item = this.items.find((i) => i.id === id);
		if (item) item.currentValue = newValue;
	}

	invalidate() {
		this.submenuComponent?.invalidate?.();
	}

	render(width) {
		return this.submenuComponent ? this.submenuComponent.render(width) : this.renderMainList(width);
	}

	renderMainList(width) {
		const lines = [];
		if (this.searchEnabled && this.searchInput) lines.push(...this.searchInput.render(width), "");
		if (this.items.length === 0) {
			lines.push(this.theme.hint("  No settings available"));
			if (this.searchEnabled) this.addHintLine(lines, width);
			return lines;
		}
		const shown = this.searchEnabled ? this.filteredItems : this.items;
		if (shown.length === 0) {
			lines.push(truncateToWidth(this.theme.hint("  No matching settings"), width));
			this.addHintLine(lines, width);
			return lines;
		}
		const start = windowStart(this.selectedIndex, this.maxVisible, shown.length);
		const end = Math.min(start + this.maxVisible, shown.length);
		const labelWidth = Math.min(30, Math.max(...this.items.map((item) => visibleWidth(item.label))));
		for (let i = start; i < end; i++) {
			const item = shown[i];
			if (!item) continue;
			const selected = i === this.selectedIndex;
			const prefix = selected ? this.theme.cursor : "  ";
			const label = this.theme.label(item.label + " ".repeat(Math.max(0, labelWidth - visibleWidth(item.label))), selected);
			const separator = "  ";
			const valueMax = width - (visibleWidth(prefix) + labelWidth + visibleWidth(separator)) - 2;
			const value = this.theme.value(truncateToWidth(item.currentValue, valueMax, ""), selected);
			lines.push(truncateToWidth(prefix + label + separator + value, width));
		}
		if (start > 0 || end < shown.length) {
			lines.push(this.theme.hint(truncateToWidth(`  (${this.selectedIndex + 1}/${shown.length})`, width - 2, "")));
		}
		const selectedItem = shown[this.selectedIndex];
		if (selectedItem?.description) {
			lines.push("");
			for (const line of wrapTextWithAnsi(selectedItem.description, width - 4)) lines.push(this.theme.description(`  ${line}`));
		}
		this.addHintLine(lines, width);
		return lines;
	}

	handleInput(data) {
		if (this.submenuComponent) {
			// The submenu's own cancel calls done(), which closes it.
			this.submenuComponent.handleInput?.(data);
			return;
		}
		const kb = getKeybindings();
		const shown = this.searchEnabled ? this.filteredItems : this.items;
		if (kb.matches(data, "tui.select.up")) {
			if (shown.length === 0) return;
			this.selectedIndex = this.selectedIndex === 0 ? shown.length - 1 : this.selectedIndex - 1;
		} else if (kb.matches(data, "tui.select.down")) {
			if (shown.length === 0) return;
			this.selectedIndex = this.selectedIndex === shown.length - 1 ? 0 : this.selectedIndex + 1;
		} else if (kb.matches(data, "tui.select.confirm") || (data === " " && (!this.searchEnabled || this.searchInput?.getValue().length === 0))) {
			this.activateItem();
		} else if (kb.matches(data, "tui.select.cancel")) {
			this.onCancel();
		} else if (this.searchEnabled && this.searchInput) {
			this.searchInput.handleInput(data);
			this.applyFilter(this.searchInput.getValue());
		}
	}

	activateItem() {
		const item = (this.searchEnabled ? this.filteredItems : this.items)[this.selectedIndex];
		if (!item) return;
		if (item.submenu) {
			this.submenuItemIndex = this.selectedIndex;
			this.submenuComponent = item.submenu(item.currentValue, (selectedValue) => {
				if (selectedValue !== undefined) {
					item.currentValue = selectedValue;
					this.onChange(item.id, selectedValue);
				}
				this.closeSubmenu();
			});
		} else if (item.values && item.values.length > 0) {
			const next = item.values[(item.values.indexOf(item.currentValue) + 1) % item.values.length];
			item.currentValue = next;
			this.onChange(item.id, next);
		}
	}

	closeSubmenu() {
		this.submenuComponent = null;
		if (this.submenuItemIndex !== null) {
			this.selectedIndex = this.submenuItemIndex;
			this.submenuItemIndex = null;
		}
	}

	applyFilter(query) {
		this.filteredItems = fuzzyFilter(this.items, query, (item) => item.label);
		this.selectedIndex = 0;
	}

	addHintLine(lines, width) {
		const hint = this.searchEnabled ? "  Type to search · Enter/Space to change · Esc to cancel" : "  Enter/Space to change · Esc to cancel";
		lines.push("", truncateToWidth(this.theme.hint(hint), width));
	}
}
