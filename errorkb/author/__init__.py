"""Authoring: from a pasted traceback (or a similar entry) to entry and snippet stubs
(`scaffold`), reading the paste with the lookup's own rules (`paste`), and what a draft still
lacks (`todo`). Above the site layer: it reads pastes as the lookup does and pins sources by AST."""
