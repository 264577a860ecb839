"""Writes docs/src/images/steering.svg: what a client sees of a prompt with a steer and a
follow-up (records abridged from scenarios steer.002 and followup.007). Run: python3 docs/images/steering.py"""
import os

ROWS = [
    ("c", "a", 'prompt {message: "Run the tool"}', ""),
    ("a", "c", "response prompt · agent_start · turn_start · user message", ""),
    ("a", "m", "request 1", ""),
    ("m", "a", "tool call, streamed", ""),
    ("a", "c", "message_update… · message_end · tool_execution_start", ""),
    ("c", "a", 'steer {message: "Also this"}', "while the tool runs"),
    ("a", "c", 'queue_update {steering: ["Also this"]} · response steer', ""),
    ("c", "a", 'follow_up {message: "Then that"}', ""),
    ("a", "c", 'queue_update {followUp: ["Then that"]} · response follow_up', ""),
    ("a", "c", "tool_execution_end · tool result message · turn_end", "the tool finishes"),
    ("a", "c", 'turn_start · queue_update · user message "Also this"', "steering: the next turn"),
    ("a", "m", "request 2 (tool result, then the steer)", ""),
    ("m", "a", "text, streamed", ""),
    ("a", "c", "message_update… · message_end · turn_end", "the run would end here"),
    ("a", "c", 'turn_start · queue_update · user message "Then that"', "follow-up: one more turn"),
    ("a", "m", "request 3", ""),
    ("m", "a", "text, streamed", ""),
    ("a", "c", "message_update… · turn_end · agent_end · agent_settled", "idle from agent_settled on"),
]
X = {"c": 90, "a": 430, "m": 700}
NAMES = {"c": "RPC client", "a": "pi-agent (stdin / stdout)", "m": "model (mock-llm)"}


def svg():
    top, step = 70, 34
    height = top + step * len(ROWS) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="980" height="{height}" font-family="sans-serif" font-size="12">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>',
        '<rect width="100%" height="100%" fill="#fff"/>',
    ]
    for key, cx in X.items():
        out.append(f'<rect x="{cx - 85}" y="15" width="170" height="28" rx="4" fill="#eef2f7" stroke="#445"/>')
        out.append(f'<text x="{cx}" y="34" text-anchor="middle" font-weight="bold">{NAMES[key]}</text>')
        out.append(f'<line x1="{cx}" y1="43" x2="{cx}" y2="{height - 15}" stroke="#99a" stroke-dasharray="4,4"/>')
    for i, (src, dst, label, note) in enumerate(ROWS):
        y = top + step * i
        x1, x2 = X[src], X[dst]
        colour = "#0550ae" if src == "c" else ("#1a7f37" if dst == "c" else "#8250df")
        end = x2 - 6 if x2 > x1 else x2 + 6
        out.append(f'<line x1="{x1}" y1="{y}" x2="{end}" y2="{y}" stroke="{colour}" stroke-width="1.5" marker-end="url(#arrow)"/>')
        label = label.replace("&", "&amp;").replace("<", "&lt;")
        out.append(f'<text x="{(x1 + x2) / 2}" y="{y - 5}" text-anchor="middle" fill="{colour}">{label}</text>')
        if note:
            out.append(f'<text x="{X["m"] + 95}" y="{y + 4}" font-style="italic" fill="#555">{note}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "src", "images", "steering.svg")
    with open(path, "w", encoding="utf-8") as file:
        file.write(svg())
    print(f"wrote {os.path.normpath(path)}")
