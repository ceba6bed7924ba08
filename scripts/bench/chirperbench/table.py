"""The figures as a table: rows of cells, drawn as aligned text for the terminal and as Markdown for BENCH.md."""

from .figures import Figure, fmt

HEADER = ["#", "figure", "unit", "program", "n", "min", "median", "max", "ratio", "target", "verdict"]


def table(figures):
    return [HEADER] + list(figure_rows(figures))


def figure_rows(figures):
    for fig in figures:
        programs = [(fig.program, fig.chirper)] + ([(fig.peer, fig.mpg123)] if fig.mpg123 is not None else [])
        for position, (name, values) in enumerate(programs):
            spread = Figure.spread(values)
            first = position == 0
            yield [
                fig.key if first else "",
                fig.label if first else "",
                fig.unit if first else "",
                name,
                str(len(values)),
                *(fmt(v, fig.unit) for v in (spread or (None, None, None))),
                (f"{fig.verdict_value:.3f}" if fig.verdict_value is not None else "–") if first else "",
                (fig.target or "") if first else "",
                (fig.verdict or "") if first else "",
            ]


def render_text(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 4 else cell.rjust(widths[i]) for i, cell in enumerate(r)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(rows):
    out = ["| " + " | ".join(rows[0]) + " |",
           "|" + "|".join(" --- " if i < 4 else " ---: " for i in range(len(rows[0]))) + "|"]
    for r in rows[1:]:
        out.append("| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |")
    return "\n".join(out)
