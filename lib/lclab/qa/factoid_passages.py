"""Which passages can carry a factoid question, read from the text alone, before any model call.

A generator asked about a heading, a table of contents, a list of links, a badge row, a code block or licence
boilerplate writes a question about the heading's name or the licence's title ("What is the name of the Apache
License?" -> "Apache License"), which a reviewer rejects (on a user's software manuals most sampled passages
were code blocks, changelogs and tables). Such passages are not sampled; the run says how many were passed over
and why. The rule asks for prose: enough characters in lines that read as sentences. Each test is a kind of text
with no sentences to ask about, named in `reason` so the run can count them.
"""

from __future__ import annotations

import re

MIN_PROSE_SHARE = 0.5  # of the passage's characters in prose lines
MIN_SENTENCES = 2  # a fact needs a sentence around it; one line of prose is a caption or a heading

_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)|https?://\S+|<a\s[^>]*>")
_BADGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_HEADING = re.compile(r"^\s*(#{1,6}\s|[=\-~^*]{3,}\s*$)")
_CODE_START = re.compile(r"^\s*(\$ |>>> |#include|def |class |import |from \S+ import|return |if \(|for \()")
_TOC_LINE = re.compile(r"^\s*(\d+(\.\d+)*\.?|[ivxlc]+\.|[-*•])\s+\S", re.IGNORECASE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$|^\s*\+[-=+]+\+\s*$|\S\s{3,}\S.*\S\s{3,}\S")
_SENTENCE = re.compile(r"[A-Za-z][^.!?]{20,}[.!?](\s|$)")
# Licence and warranty boilerplate: phrases that every copy of a licence notice repeats word for word.
_BOILERPLATE = re.compile(
    r"permission is hereby granted|provided \W?as is\W?|without warranties or conditions|without any warranty"
    r"|licensed under the|under the terms of the gnu|redistribution and use in source and binary forms"
    r"|all rights reserved|this program is free software|merchantability or fitness for a particular purpose"
    r"|you may not use this file except in compliance", re.IGNORECASE)


def _code(line: str) -> bool:
    """A line of code or markup: it starts like one, or a sixth of its characters are symbols prose rarely uses
    (indentation alone says nothing: plain-text manuals indent their prose)."""
    body = line.strip()
    symbols = sum(not (c.isalnum() or c.isspace() or c in ".,;:'\"!?()-") for c in body)
    return bool(_CODE_START.match(line)) or (len(body) > 0 and symbols >= len(body) / 6)


def _toc(line: str) -> bool:
    return bool(_TOC_LINE.match(line)) and len(line.split()) <= 9 and not line.rstrip().endswith((".", ":"))


def _prose(line: str) -> bool:
    words = line.split()
    letters = sum(c.isalpha() for c in line)
    return (len(words) >= 8 and letters >= 0.6 * len(line.strip()) and not _code(line)
            and not _TABLE_LINE.search(line) and len(_LINK.findall(line)) <= len(words) // 8)


def not_factoid_reason(text: str) -> str | None:
    """Why a passage cannot carry a factoid question (a reason's name), or None when it can."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "empty"
    chars = sum(len(line) for line in lines)
    share = lambda test: sum(len(line) for line in lines if test(line)) / chars  # noqa: E731
    if text.count("```") >= 2 and share(lambda line: not line.lstrip().startswith("```")) and \
            sum(len(b) for b in re.findall(r"```.*?```", text, re.S)) > 0.6 * len(text):
        return "code_only"
    for reason, test in (("badges", _BADGE.search), ("link_list", lambda line: len(_LINK.findall(line)) >= 1
                                                       and len(_LINK.sub("", line).split()) <= 6),
                         ("table", _TABLE_LINE.search), ("code_only", _code),
                         ("table_of_contents", _toc), ("headings", _HEADING.match)):
        if share(test) > 0.5:
            return reason
    if len(_BOILERPLATE.findall(text)) >= 2:
        return "licence_boilerplate"
    prose = [line for line in lines if _prose(line)]
    if sum(len(line) for line in prose) < MIN_PROSE_SHARE * chars:
        return "too_little_prose"
    if len(_SENTENCE.findall(" ".join(prose))) < MIN_SENTENCES:
        return "too_few_sentences"
    return None
