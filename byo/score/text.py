"""Text helpers for parsing answers: cleaning, answer spans, echoed prompts, refusals.

A span is the part of an answer that holds the answer: a structured form (`{answer: 5}`,
`<answer>5</answer>`, `\\boxed{5}`, JSON), a value alone in braces ("{5}"), the text after a
cue ("the answer is"), the blank of an echoed fill-in-the-blank sentence, or the text after an
echoed declarative lead.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata

from byo.families.base import option_label

_MARKDOWN = re.compile(r"\*\*|\*|`+|^#+\s*", re.MULTILINE)
# Runs of spaces and tabs become one space; a lone space is left as it is (the same, with fewer
# replacements).
_SPACES = re.compile(r"[ \t\r\f\v]{2,}|[\t\r\f\v]")


def clean(text: str | None) -> str:
    """NFKC, no markdown emphasis, single spaces; newlines kept (they end sentences)."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2013", "-").replace("\u2014", " - ")
    if "*" in text or "`" in text or "#" in text:  # what markdown emphasis needs
        text = _MARKDOWN.sub("", text)
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.splitlines()).strip()


# A new turn the model wrote itself ("... The answer is 0.\n\nQuestion: How many ...? The answer is 1."):
# a turn marker after the answer's own text, at a line's start or after a sentence's end.
_NEW_TURN = re.compile(r"(?:\n|(?<=[.!?])[ \t]+)[ \t]*(?:#+[ \t]*)?(?:question|q|user|human|problem)[ \t]*\d*[ \t]*:",
                       re.IGNORECASE)


def first_turn(text: str) -> str:
    """The answer up to a new turn the model wrote after it (a "Question: ..." of its own): only
    the first turn answers the question asked."""
    for m in _NEW_TURN.finditer(text):
        if text[: m.start()].strip():
            return text[: m.start()].rstrip()
    return text


# --- structured answers ---------------------------------------------------------------
# Each form is found in one pass over the answer, whatever its length: an opener without its
# closer ends the search (no later opener can have one either), and nested forms are read once,
# as the outermost.
_ANSWER_BRACES_OPEN = re.compile(r"\{\s*[\"']?(?:final[_ ])?answer[\"']?\s*[:=]\s*", re.IGNORECASE)
_ANSWER_BRACES_CLOSE = re.compile(r"\}(?!\})")
_ANSWER_TAG_OPEN = re.compile(r"<answer>\s*", re.IGNORECASE)
_ANSWER_TAG_CLOSE = re.compile(r"\s*</answer>", re.IGNORECASE)
_JSON_KEYS = ("answer", "final_answer", "count", "number", "value", "result", "label", "option", "choice",
              "program", "code", "kdl", "description", "translation", "types", "position", "cell")
JSON_SCAN = 4  # failed JSON decodes may read at most this many times the answer's length in all


def _enclosed(text: str, opener: re.Pattern, closer: re.Pattern) -> list[tuple[int, str]]:
    """(start, content) of each opener ... closer pair, left to right, without overlaps."""
    out = []
    pos = 0
    while (m := opener.search(text, pos)) is not None:
        end = closer.search(text, m.end())
        if end is None:
            break
        out.append((m.start(), text[m.end(): end.start()]))
        pos = end.end()
    return out


_BOXED = re.compile(r"\\boxed\s*\{")
_TEXT_COMMAND = re.compile(r"\\(?:text|mathrm|textbf)\s*\{([^{}]*)\}")


def _boxed(text: str) -> list[str]:
    """Contents of \\boxed{...} (the outermost of nested ones), with \\text{} unwrapped; an
    unclosed one runs to the end."""
    out = []
    pos = 0
    while (m := _BOXED.search(text, pos)) is not None:
        depth, i = 1, m.end()
        while depth and (i := _brace(text, i)) != -1:
            depth += 1 if text[i] == "{" else -1
            i += 1
        inner = text[m.end(): i - 1] if depth == 0 else text[m.end():]
        out.append(_TEXT_COMMAND.sub(r"\1", inner))
        if depth:
            break
        pos = i
    return out


_BRACE = re.compile(r"[{}]")


def _brace(text: str, start: int) -> int:
    m = _BRACE.search(text, start)
    return m.start() if m else -1


_JSON = json.JSONDecoder()
# Where a JSON object can begin: a brace, then a key or the closing brace.
_JSON_START = re.compile(r'\{[ \t\n\r]*["}]')
JSON_WINDOW = 1024  # characters first decoded from a candidate; doubled while the object runs past them
JSON_MAX = 1 << 20  # characters an object may have


def _decode_at(text: str, i: int) -> tuple[dict | None, int, int]:
    """(the JSON value starting at text[i], where it ends, characters read) or (None, i, read)."""
    width, read = JSON_WINDOW, 0
    while True:
        chunk = text[i: i + width]
        try:
            obj, end = _JSON.raw_decode(chunk)
            return obj, i + end, read + end
        except json.JSONDecodeError as err:
            # Decoding a window, not the rest of the text: a failure costs what was read, not the
            # text's length (the decoder counts the lines before the error).
            cut_short = err.pos >= len(chunk) - 1 or err.msg.startswith("Unterminated string")
            if not cut_short or i + width >= len(text) or width >= JSON_MAX:
                return None, i, read + err.pos
            read += len(chunk)
            width *= 2
        except RecursionError:  # nested too deeply to be an answer
            return None, i, read + len(chunk)


def _json_objects(text: str) -> list[dict]:
    """JSON objects in the text (fenced or inline), outermost first. Failed decodes may read at
    most JSON_SCAN times the text's length in all (a text full of unclosed objects)."""
    out = []
    budget = JSON_SCAN * len(text) + 10_000
    pos = 0
    while (m := _JSON_START.search(text, pos)) is not None:
        obj, end, read = _decode_at(text, m.start())
        if obj is None:
            budget -= read
            if budget <= 0:
                break
            pos = m.start() + 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        pos = end
    return out


def _json_value(value) -> str:
    if isinstance(value, list):
        return ", ".join(_json_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_json_value(v)}" for k, v in value.items())
    return str(value)


def structured_spans(text: str) -> list[str]:
    """Answers the model marked as answers, in order of appearance."""
    found: list[tuple[int, str]] = []
    found += [(start, content.strip().strip(" \"'")) for start, content in
              _enclosed(text, _ANSWER_BRACES_OPEN, _ANSWER_BRACES_CLOSE)]
    found += _enclosed(text, _ANSWER_TAG_OPEN, _ANSWER_TAG_CLOSE)
    found += [(text.find("\\boxed"), b) for b in _boxed(text)]
    first_brace = text.find("{")
    for obj in _json_objects(text):
        lowered = {str(k).lower(): v for k, v in obj.items()}
        for key in _JSON_KEYS:
            if key in lowered:
                found.append((first_brace, _json_value(lowered[key])))
                break
        else:
            if {"row", "column"} <= set(lowered) or {"row", "col"} <= set(lowered):
                found.append((first_brace, _json_value(obj)))
    return [s for _, s in sorted(found, key=lambda f: f[0])]


# A value alone in braces, as prompts ask ("answer in curly brackets, e.g. {2}"): "{3}", "rows={4}",
# "{Yes}". Not a set, JSON or LaTeX: nothing but a short value, no brace or word right before.
_BARE_BRACES = re.compile(r"(?<![\w}\\$])\{\s*([^{}:\"\n]{1,24}?)\s*\}")


def brace_spans(text: str) -> list[str]:
    """The values the answer wrote alone in braces, in order ("my count is {3}")."""
    return [m.group(1) for m in _BARE_BRACES.finditer(text)]


# --- cues -----------------------------------------------------------------------------
_CUE = re.compile(
    r"(?:(?:\bfinal answer\b|\bthe (?:correct |right |best )?(?:answer|option|choice|caption)\b"
    r"(?:\s+(?:to|for)\s+[^\n]{0,160}?(?=\s+is\b))?|\banswer\b|"
    r"\bmy answer\b)\s*(?:is|would be|will be|should be|=|:|-)|\bfinal(?: code| program| label)?\s*:)\s*:?\s*"
    r"|(?:答え|回答)\s*(?:は|:)\s*",
    re.IGNORECASE)
CONCLUSION = re.compile(
    r"\b(?:so|therefore|thus|hence|in total|a total of|total of|altogether|in all|overall|that makes|"
    r"which makes|which gives|that gives|the total is|totals?|in conclusion|to conclude|to summari[sz]e|"
    r"final count|finally)\b",
    re.IGNORECASE)
# a corrected answer: "but after checking again I count 7"
REVISION = re.compile(
    r"\b(?:actually|on reflection|on second thought|on closer (?:look|inspection)|looking (?:again|closer|more closely)|"
    r"after (?:checking|counting|looking|comparing)(?: again| more carefully| closely)?|recount(?:ing|ed)?|"
    r"counting again|correction|wait)\b",
    re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


_SENTENCE_END = re.compile(r"(?<!\d)[.!?](?!\d)(?:\s|$)|\n|。")


def sentence_end(text: str, start: int, stop: int | None = None) -> int:
    """Where the sentence that goes on at `start` ends (at most `stop`)."""
    stop = len(text) if stop is None else stop
    m = _SENTENCE_END.search(text, start, stop)
    return m.start() if m else stop


def to_sentence_end(text: str, start: int, stop: int | None = None) -> str:
    """The text from `start` to the end of its sentence (and at most to `stop`)."""
    return text[start: sentence_end(text, start, stop)]


def _bullets(text: str, start: int, stop: int) -> str | None:
    """A bulleted list starting at `start` (after "The answer is"), as one span. A number right
    after the cue is the answer, not a list's first number ("The answer is 4. Two are red")."""
    items = []
    pos = start
    while pos <= stop:
        end = text.find("\n", pos, stop)
        line = text[pos: stop if end == -1 else end]
        if not _BULLET.match(line) or (pos == start and line.lstrip()[:1].isdigit()):
            break
        items.append(_BULLET.sub("", line))
        if end == -1:
            break
        pos = end + 1
    return ", ".join(items) if items else None


def cue_spans(text: str) -> list[str]:
    """The text after each "the answer is" / "Answer:" cue, up to the end of its sentence (or list),
    and at most to the next cue (whose own span is the later one)."""
    cues = list(_CUE.finditer(text))
    out = []
    for k, m in enumerate(cues):
        stop = cues[k + 1].start() if k + 1 < len(cues) else len(text)
        span = _bullets(text, m.end(), stop) or to_sentence_end(text, m.end(), stop).strip()
        if span:
            out.append(span)
    return out


# --- the prompt -----------------------------------------------------------------------
# What is read off a prompt is kept per prompt: a run asks the same prompts of every image.
PROMPT_CACHE = 16384  # distinct prompts (and option lists) kept: a few kB each


@functools.lru_cache(maxsize=PROMPT_CACHE)
def prompt_sentences(prompt: str) -> tuple[str, ...]:
    """Sentences of the prompt, each with its final punctuation (":" ends a declarative lead)."""
    parts = re.split(r"(?<=[.?!:])\s+", clean(prompt))
    return tuple(p for p in parts if len(p.split()) >= 3)


def words_pattern(phrase: str) -> str:
    """A phrase as a pattern of its words, whatever the case, spacing and punctuation between them
    ("There is a cube. There is a sphere" matches "there is a cube, there is a sphere")."""
    return r"\W+".join(re.escape(w) for w in re.findall(r"\w+", phrase))


def without_options(prompt: str, choices: tuple[str, ...] | None) -> str:
    """The prompt without its lettered options ("(B) There is a cube."): an option's sentences are
    the answers, not an echo of the question."""
    if not choices:
        return prompt
    for i, choice in enumerate(choices):
        if body := words_pattern(choice):
            prompt = re.sub(rf"\(?{re.escape(option_label(i))}[).:]\s*{body}\W?", " ", prompt, flags=re.IGNORECASE)
    return prompt


@functools.lru_cache(maxsize=PROMPT_CACHE)
def _echo_patterns(prompt: str, choices: tuple[str, ...] | None) -> tuple[re.Pattern, ...]:
    """The prompt's sentences (the options list first, and no sentence of an option), longest
    first, as patterns to remove."""
    candidates = sorted(prompt_sentences(without_options(prompt, choices)), key=len, reverse=True)
    if choices:
        candidates.insert(0, " ".join(f"({option_label(i)}) {c}" for i, c in enumerate(choices)))
    patterns = []
    for sentence in candidates:
        body = sentence.rstrip(".?!:").strip()
        if len(body) >= 12:
            patterns.append(re.compile(r"\s+".join(re.escape(w) for w in body.split()) + r"\s*[.?!:]?",
                                       re.IGNORECASE))
    return tuple(patterns)


def strip_echo(text: str, prompt: str, choices: list[str] | None = None) -> str:
    """The answer without sentences copied from the prompt (and without the options list)."""
    out = text
    for pattern in _echo_patterns(prompt, tuple(choices) if choices else None):
        out = pattern.sub(" ", out)
    return clean(out)


@functools.lru_cache(maxsize=PROMPT_CACHE)
def echo_bigrams(prompt: str) -> frozenset[tuple[str, str]]:
    """(word, number) pairs of the prompt ("row 3", "from 0"): the same pair in an answer is an echo."""
    return frozenset((w.lower(), n) for w, n in re.findall(r"([A-Za-z]+)\s+(\d+)\b", prompt))


@functools.lru_cache(maxsize=PROMPT_CACHE)
def _template_patterns(prompt: str) -> tuple[tuple[bool, re.Pattern], ...]:
    """(is a blank, pattern) per fill-in-the-blank sentence and per declarative lead of the prompt."""
    out = []
    sentences = prompt_sentences(prompt)
    for i, sentence in enumerate(sentences):
        if "____" in sentence:
            before, _, after = sentence.partition("____")
            words_before = before.split()[-6:]  # the words right around the blank
            words_after = after.rstrip(".?!").split()[:4]
            pattern = (r"\s+".join(re.escape(w) for w in words_before) + r"\s*(.+?)\s*"
                       + r"\s+".join(re.escape(w) for w in words_after) + (r"(?=[\s.,;!?)]|$)" if words_after else r"(?:[.!?\n]|$)"))
            out.append((True, re.compile(pattern, re.IGNORECASE)))
        elif sentence.endswith(":") and not any("?" in later for later in sentences[i + 1:]):
            lead = sentence[:-1].split()
            out.append((False, re.compile(r"\s+".join(re.escape(w) for w in lead) + r"\s*:?\s*", re.IGNORECASE)))
    return tuple(out)


def template_spans(text: str, prompt: str) -> list[str]:
    """The blank of an echoed fill-in-the-blank sentence; the text after an echoed declarative lead
    (up to the end of its sentence, and at most to the next echo of the lead)."""
    spans = []
    for blank, pattern in _template_patterns(prompt):
        if blank:
            spans += [m.group(1) for m in pattern.finditer(text)]
        else:
            leads = list(pattern.finditer(text))
            for k, m in enumerate(leads):
                span = to_sentence_end(text, m.end(), leads[k + 1].start() if k + 1 < len(leads) else None).strip()
                if span:
                    spans.append(span)
    return spans


# --- refusals and negation ---------------------------------------------------------------
_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|unable to|not able to|won't be able to|am not able to|do not have the ability to)\s+"
    r"(?:\w+\s+){0,3}?(?:determine|tell|see|identify|count|answer|help|assist|provide|view|access|analy[sz]e|"
    r"process|make out|say|discern|recogni[sz]e|read|locate|find|comply|describe|detect|distinguish|interpret)\b"
    r"|\b(?:not |im)possible to (?:determine|tell|say|answer|count|identify|know)\b"
    r"|\bno image\b|\b(?:don't|do not|cannot|can't) see (?:an?|any|the) (?:image|picture|attachment)\b"
    r"|\bimage (?:is not|isn't|was not|wasn't) (?:visible|available|provided|attached|loaded|included)\b"
    r"|\bas an ai\b|\bi'm sorry, but\b|\bi apologi[sz]e, but\b|\bi (?:must|have to) decline\b"
    r"|\bnot enough (?:information|detail|context)\b|\binsufficient (?:information|detail)\b"
    r"|\b(?:do not|don't|does not|doesn't) have (?:enough|sufficient) (?:information|detail|context)\b"
    r"|\b(?:can ?not|can't|unable to)\s+(?:\w+\s+){0,2}?(?:confirm|verify)\b",
    re.IGNORECASE)


_IDIOM = re.compile(r"\b(?:can ?not|can't) help but\b", re.IGNORECASE)  # "you can't help but notice": no refusal


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL.search(_IDIOM.sub(" ", text) if "help" in text else text))


# --- options the answer lists itself -----------------------------------------------------------
_LONE_LETTER = re.compile(r"^\W*\(?([A-Z])\)?\W*$")


def own_option(span: str, answer: str) -> str | None:
    """The text of the option a marked answer names by a lone letter ("Answer: (A)") where the
    question offers no options but the answer lists its own ("(A) Yes (B) No"); None otherwise."""
    m = _LONE_LETTER.match(span)
    if not m:
        return None
    listed = re.findall(r"\(([A-Z])\)\s*([^()\n]+?)\s*(?=\([A-Z]\)|\n|$)", answer)
    texts = {letter: t.strip(" .,;") for letter, t in listed}
    return texts.get(m.group(1)) if len(listed) >= 2 and len(texts) == len(listed) else None


# --- a question that does not apply ---------------------------------------------------------
_NO_OPTION = re.compile(
    r"\bnone of the (?:\w+\s+){0,2}?(?:choices|options|answers)\b"
    r"|\b(?:is|are) not (?:listed|provided|given|included|offered|among)\b[^.\n]{0,40}?\b(?:choices|options)\b"
    r"|\bthe question\b[^.\n]{0,120}?\bis (?:incorrect|wrong|invalid|mistaken|not applicable)\b", re.IGNORECASE)
_NO_SUCH = (r"(?:there (?:is|are) no|(?:i )?(?:do not|don't|cannot|can't) see (?:an?|any)|"
            r"(?:does not|doesn't|do not|don't) (?:show|contain|include|depict) (?:an?|any)|no)\s+(?:[\w-]+\s+){0,2}?")
_SUBJECT = re.compile(r"\b(?:the|which|what)\s+((?:[a-z-]+\s+)?[a-z-]+)", re.IGNORECASE)
_QUESTION_WORDS = frozenset("is are was were does do did has have can could being of in on to with".split())


@functools.lru_cache(maxsize=PROMPT_CACHE)
def _premise_pattern(prompt: str) -> re.Pattern | None:
    """"there is no letter", "I don't see a conveyor belt": what the question takes as given (a
    noun after "the", "which" or "what": "which letter", "the conveyor belt") said to be absent."""
    nouns = set()
    for phrase in _SUBJECT.findall(clean(prompt)):
        words = [w for w in phrase.lower().split() if w not in _QUESTION_WORDS]
        if words:
            nouns.add(words[-1])
    nouns -= {"image", "picture", "photo", "colour", "color", "number", "answer", "one", "following"}
    if not nouns:
        return None
    forms = "|".join(sorted({re.escape(n) + suffix for n in nouns for suffix in ("", "s", "es")}, key=len, reverse=True))
    return re.compile(rf"\b{_NO_SUCH}(?:{forms})\b", re.IGNORECASE)


def denies_premise(text: str, prompt: str, choices: list[str] | None = None, *, found: bool = False) -> str | None:
    """Why the answer says the question does not apply, if it does: none of the options fits
    ("none of the choices (A) 4, (B) 3 ... is correct"), or (in an answer where no value was
    `found`) what the question takes as given is not in the image ("There is no letter being
    circled", asked which letter is circled)."""
    if choices and _NO_OPTION.search(text):
        return "the answer says none of the options fits, or that the question does not apply"
    pattern = _premise_pattern(prompt) if prompt and not found else None
    if pattern is not None and pattern.search(text):
        return "the answer says what the question asks about is not in the image"
    return None


_NEGATORS = {"not", "no", "never", "neither", "nor", "without", "except", "excluding", "isn't", "aren't", "wasn't",
             "weren't", "doesn't", "don't", "didn't", "nothing", "lacks", "absent"}
_SCOPE_BREAK = re.compile(r"[,.;:!?()\n]|\bbut\b|\bhowever\b|\band\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)
_LOWER_WORD = re.compile(r"[a-z']+")
# "rather than bolts", "distinct from both screws and nuts": the items a contrast sets apart
_CONTRAST = re.compile(r"\b(?:rather than|instead of|other than|as opposed to|distinct from|different from|unlike)"
                       r"\s+(?:both\s+|either\s+|the\s+)?(?:[\w-]+\s+)?(?:[\w-]+(?:,\s+|\s+(?:and|or)\s+)){0,3}$")


# A negated list: "no screws or nuts", "neither bolts nor nuts", "not red, green or blue": the
# negator's scope runs over the items joined by "or" / "nor" (a comma only inside such a list).
_NEGATED_LIST = re.compile(
    r"(?:\b(?:no|not|neither|never|without|none of the)|n't)\s+(?:[\w-]+\s+)?[\w-]+"
    r"(?:\s*,\s*(?:[\w-]+\s+){0,2}?[\w-]+)*\s*,?\s+(?:or|nor)\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)


def negated(text: str, start: int) -> bool:
    """Whether the mention at `start` is negated: a negator among the 3 words before it, same clause,
    or the negator of a list the mention ends ("no screws or nuts")."""
    before = text[max(0, start - 60): start]
    wider = text[max(0, start - 100): start]
    if _NEGATED_LIST.search(wider) or _CONTRAST.search(wider.lower()):
        return True
    breaks = list(_SCOPE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end():]
    words = _LOWER_WORD.findall(before.lower())[-3:]
    return any(w in _NEGATORS or w.endswith("n't") for w in words)
