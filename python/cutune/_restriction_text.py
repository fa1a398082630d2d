"""A restriction written as a Python function, as Kernel Tuner takes it, read back into the text of its expression:
`lambda p: p["block_size_x"] * p["tile"] <= 1024` (one argument, the configuration's dict) and
`lambda block_size_x, tile: block_size_x * tile <= 1024` (one argument per parameter) both become
"block_size_x * tile <= 1024", which a spec's constraints hold. A function whose body is more than one expression, or
whose source is not at hand, cannot be read; None then."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Callable, List, Optional


def _candidates(source: str) -> List[ast.AST]:
    """The lambdas and functions in `source`, which may be a fragment of a longer statement (the lines a lambda is on
    inside a call): parsed from each `lambda` on, shortened from the end until it parses."""
    try:
        tree = ast.parse(textwrap.dedent(source))
        return [n for n in ast.walk(tree) if isinstance(n, (ast.Lambda, ast.FunctionDef))]
    except SyntaxError:
        pass
    found: List[ast.AST] = []
    start = source.find("lambda")
    while start >= 0:
        text = source[start:]
        for end in range(len(text), 0, -1):
            try:
                tree = ast.parse(text[:end].strip(), mode="eval")
            except SyntaxError:
                continue
            # the lambda that starts the text (the text may go on: `lambda p: ..., [other], name`)
            found += [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == 1 and n.col_offset == 0]
            break
        start = source.find("lambda", start + 1)
    return found


def _body(node: ast.AST) -> Optional[ast.expr]:
    if isinstance(node, ast.Lambda):
        return node.body
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


class _Names(ast.NodeTransformer):
    """p["name"] -> name, for the dict argument `p`."""

    def __init__(self, dict_name: str):
        self.dict_name = dict_name

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == self.dict_name and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return ast.copy_location(ast.Name(id=node.slice.value, ctx=ast.Load()), node)
        return self.generic_visit(node)


def restriction_text(function: Callable[..., Any], parameters: List[str]) -> Optional[str]:
    """The expression of `function` as text over the parameter names, or None when it cannot be read."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None
    names = list(function.__code__.co_varnames[:function.__code__.co_argcount])
    for node in _candidates(source):
        args = [a.arg for a in node.args.args]
        body = _body(node)
        if args != names or body is None:
            continue
        if len(args) == 1 and args[0] not in parameters:
            body = _Names(args[0]).visit(body)
        text = ast.unparse(body)
        used = {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
        if len(args) == 1 and args[0] in used:
            return None  # the dict is used in some other way than p["name"]
        return text
    return None
