"""Merge trees as nested boxes: how a token was built, merge by merge (pure HTML/CSS).

:func:`bpe_viz.engine.merges.quiz.merge_tree` gives the tree as data; this draws it the way
every view draws (the kit's chips) (inline styles, escaped text, colored chips with dimmed
markers). A token made by a merge is a box titled with the token and "merge N"; inside, its
two parts side by side with a "+" between them, each a box of its own, down to the initial
symbols (plain chips). For the 2016 paper's toy, ``newest</w>`` (merge 8) holds ``new``
(merge 7: ``ne`` + ``w``) and ``est</w>`` (merge 3: ``est`` + ``</w>``), and so on down to
the letters.

Example::

    >>> from bpe_viz import train_bpe
    >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    >>> out = merge_tree_html(trace, "newest</w>")
    >>> out.count('class="bpe-tree-node"'), "merge 8" in out, "est&lt;/w&gt;" in out
    (6, True, True)
"""

from __future__ import annotations

from ...engine.merges import merge_tree
from ..kit import box, check_size, display_text, esc, token_color, token_html

__all__ = ["merge_tree_html", "merge_trees_html", "walkthrough_trees_html", "no_tree_html", "MAX_BOXES"]

_PLUS = '<span class="bpe-tree-plus" style="align-self:center;padding:0 0.25em;font-weight:700;color:#333">+</span>'


#: The most merge boxes one tree draws; deeper parts stay closed, as chips (a token merged
#: from a pasted 20,000-letter word has thousands of merges under it).
MAX_BOXES = 40


def _open_paths(tree, limit: int) -> set:
    """Paths ("", "0", "01", ...) of the merge nodes drawn open: breadth first, at most ``limit``."""
    opened, queue = set(), [("", tree)]
    while queue and len(opened) < limit:
        path, node = queue.pop(0)
        if node[1] == 0:
            continue
        opened.add(path)
        queue.extend([(path + "0", node[2]), (path + "1", node[3])])
    return opened


def _short(text: str, limit: int = 40) -> str:
    """A token for a hover title or a caption, cut after ``limit`` characters."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"


def _node_html(node, conv, opened, path="") -> str:
    token, step, left, right = node
    if step == 0:
        return (f'<span class="bpe-tree-leaf" style="align-self:flex-end">'
                f"{token_html(token, convention=conv, title=f'{_short(token)}: an initial symbol')}</span>")
    shown = (_short(display_text(token, conv)), _short(display_text(left[0], conv)),
             _short(display_text(right[0], conv)))
    title = f"{shown[0]} = {shown[1]} + {shown[2]} (merge {step})"
    if path not in opened:
        return (f'<span class="bpe-tree-closed" style="align-self:flex-end" title="{esc(title)}">'
                f"{token_html(token, convention=conv, title=title)}"
                f'<span style="color:#555;font-size:0.75em"> merge {step:,} …</span></span>')
    head = (
        f'<div class="bpe-tree-head" style="white-space:nowrap">'
        f"{token_html(token, convention=conv, title=title)}"
        f' <span class="bpe-tree-step" style="color:#333;font-size:0.8em">merge {step:,}</span></div>'
    )
    parts = (
        '<div class="bpe-tree-parts" style="display:flex;align-items:flex-end;margin-top:0.2em">'
        f"{_node_html(left, conv, opened, path + '0')}{_PLUS}{_node_html(right, conv, opened, path + '1')}</div>"
    )
    # the box's left edge in the token's color: a box and its chip go together at a glance
    style = (f"display:inline-flex;flex-direction:column;align-items:flex-start;border:1px solid #888;"
             f"border-left:0.3em solid {token_color(token)};border-radius:0.35em;padding:0.15em 0.35em 0.3em;"
             "margin:0.1em;background:#FFF")
    return f'<div class="bpe-tree-node" style="{style}" title="{esc(title)}">{head}{parts}</div>'


def _count(tree) -> tuple[int, int]:
    """(merges, initial symbols) in a tree (without recursion: a tree can be thousands deep)."""
    merges = leaves = 0
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[1] == 0:
            leaves += 1
        else:
            merges += 1
            stack.extend((node[2], node[3]))
    return merges, leaves


def _tree_block(trace, token, upto) -> str:
    tree = merge_tree(trace, token, upto=upto)
    conv = trace.convention
    merges, leaves = _count(tree)
    if merges == 0:
        what = "an initial symbol: no merge made it"
    else:
        what = (f"{merges:,} merge{'s' if merges != 1 else ''} "
                f"from {leaves:,} initial symbol{'s' if leaves != 1 else ''}")
    if merges > MAX_BOXES:
        what += f"; the first {MAX_BOXES} shown open"
    label = _short(display_text(token, conv))
    cap = (f'<div class="bpe-tree-caption" style="color:#555;font-size:0.85em">'
           f"&ldquo;{esc(label)}&rdquo;: {esc(what)}</div>")
    return (f'<div class="bpe-tree" style="display:inline-block;vertical-align:top;margin:0 0.8em 0.5em 0">'
            f"{cap}{_node_html(tree, conv, _open_paths(tree, MAX_BOXES))}</div>")


def merge_tree_html(trace, token: str, *, upto: int | None = None, size: float = 1.0) -> str:
    """How ``token`` was built from the trace's merges, as nested boxes: each box is one merge
    ("merge N"), holding the two parts it joined; initial symbols are plain chips. ``upto``:
    only the first ``upto`` merges count (a token made later is a ValueError naming its merge).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> "2 merges from 3 initial symbols" in merge_tree_html(trace, "low")
        True
    """
    size = check_size(size)
    return box(_tree_block(trace, token, upto), "bpe-trees", size)


def merge_trees_html(trace, tokens, *, upto: int | None = None, size: float = 1.0) -> str:
    """The merge trees of several tokens side by side (each once, in the order given).

    Example::

        >>> from bpe_viz import train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> merge_trees_html(trace, ["low", "est</w>", "low"]).count('class="bpe-tree"')
        2
    """
    size = check_size(size)
    if isinstance(tokens, str):
        raise TypeError("tokens must be a list of tokens, not one string: use merge_tree_html(trace, token)")
    blocks = [_tree_block(trace, t, upto) for t in dict.fromkeys(tokens)]
    return box("".join(blocks), "bpe-trees", size)


def walkthrough_trees_html(walkthrough, trace) -> str:
    """How each token of an encoder walkthrough's result was built (the tokens a merge made;
    initial symbols and unknown pieces have no tree), for :func:`.walkthrough.walkthrough_html`.
    Returns ``""`` when no token of the result was made by a merge.

    Example::

        >>> from bpe_viz import encode_word, train_bpe
        >>> trace = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
        >>> out = walkthrough_trees_html(encode_word("lowest", trace), trace)
        >>> out.count('class="bpe-tree"'), "How the tokens were built" in out
        (2, True)
    """
    k = walkthrough.num_merges
    blocks = []
    for tok in dict.fromkeys(walkthrough.final):
        try:
            tree = merge_tree(trace, tok, upto=k)
        except ValueError:
            continue  # unknown, or not a token of the first k merges: nothing to unfold
        if tree[1] > 0:
            blocks.append(_tree_block(trace, tok, k))
    if not blocks:
        return ""
    return ('<div class="bpe-walk-trees" style="margin-top:0.5em">'
            '<div style="font-weight:700">How the tokens were built (merge trees)</div>'
            f'{"".join(blocks)}</div>')


def no_tree_html(message, *, size: float = 1.0) -> str:
    """Why there is no tree to show (a token not in the vocabulary, or not made yet), as a
    neutral note: the explorer around it still works, so this is not an error box.

    Example::

        >>> no_tree_html(ValueError("token 'x' is not in this trace's vocabulary")).count("bpe-tree-note")
        1
    """
    size = check_size(size)
    if isinstance(message, BaseException):
        message = str(message) or type(message).__name__
    return box(f"No merge tree: {esc(message)}", "bpe-tree-note", size,
               "color:#333;padding:0.3em 0.5em;border-left:0.3em solid #888;margin:0.2em 0")
