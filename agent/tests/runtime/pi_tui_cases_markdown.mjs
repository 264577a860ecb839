// Markdown cases (filled in with the Markdown component).
export function markdownCases(_tui) {
	return [];
}
