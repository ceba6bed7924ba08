"""A few figures of each kind the table shows: with a peer and missed, a base and its overhead, no data."""

from chirperbench.figures import Figure, judge


def judged_figures():
    plain = Figure("9a", "plain", "CPU s", [2.0, 2.2])
    figures = [
        Figure("1", "first sound (`play`|`LOAD`)", "ms", [5.25, 6.0, 7.5], [4.0, 5.0], "≤ 0.9"),
        plain,
        Figure("9b", "keep", "CPU s", [5.0, 5.5], base=plain),
        Figure("10b", "png", "ms", [], [1.0], "≤ 1.5"),
    ]
    judge(figures)
    return figures


TEXT_TABLE = [
    "#    figure                       unit   program       n    min  median    max  ratio  target            verdict",
    "---  ---------------------------  -----  ------------  -  -----  ------  -----  -----  ------  -----------------",
    "1    first sound (`play`|`LOAD`)  ms     chirper-play  3    5.2     6.0    7.5  1.333   ≤ 0.9  MISSED (48% over)",
    "                                         mpg123        2    4.0     4.5    5.0                                  ",
    "9a   plain                        CPU s  chirper-play  2  2.000   2.100  2.200      –                           ",
    "9b   keep                         CPU s  chirper-play  2  5.000   5.250  5.500  2.500                           ",
    "10b  png                          ms     chirper-play  0      –       –      –      –   ≤ 1.5            no data",
    "                                         mpg123        1    1.0     1.0    1.0                                  ",
]

MARKDOWN_TABLE = [
    "| # | figure | unit | program | n | min | median | max | ratio | target | verdict |",
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    "| 1 | first sound (`play`\\|`LOAD`) | ms | chirper-play | 3 | 5.2 | 6.0 | 7.5 | 1.333 | ≤ 0.9 "
    "| MISSED (48% over) |",
    "|  |  |  | mpg123 | 2 | 4.0 | 4.5 | 5.0 |  |  |  |",
    "| 9a | plain | CPU s | chirper-play | 2 | 2.000 | 2.100 | 2.200 | – |  |  |",
    "| 9b | keep | CPU s | chirper-play | 2 | 5.000 | 5.250 | 5.500 | 2.500 |  |  |",
    "| 10b | png | ms | chirper-play | 0 | – | – | – | – | ≤ 1.5 | no data |",
    "|  |  |  | mpg123 | 1 | 1.0 | 1.0 | 1.0 |  |  |  |",
]
