// Editor cases (filled in with the Editor).
export function editorCases(_tui) {
	return [];
}
