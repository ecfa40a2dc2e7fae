/* errorkb lookup: which entry does a pasted error belong to, and how sure is it?
 *
 * The same matcher as errorkb/lookup/ (its docstrings state the rules): template parsing and
 * matching, the paste's reading, grading by evidence (confirmed or candidate), ranking. Every
 * rule that is data, every regular expression, limit, placeholder type and generic wording, is
 * read from the index this page is shipped (`index.rules`, written by errorkb/lookup/_rules.py),
 * never kept here. tests/site/test_lookup_js.py runs both on the whole corpus and compares their
 * answers and their counted work. No DOM here: errorkb.js wires it up.
 *
 * Where JavaScript and Python differ, the code says the same thing explicitly: whitespace is
 * ASCII, line ends are normalised before any regex sees them, and sizes are counted in code points.
 */
(function (root, factory) {
  const api = factory();
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.errorkbLookup = api;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  class TemplateSyntaxError extends Error {}

  const OPENERS = { "(": ")", "[": "]", "{": "}" };
  /* A table keyed by names that entries and pastes choose (placeholders, rule names): no inherited keys, so a
   * placeholder called `constructor` or `__proto__` is an entry like any other (a Python dict's behaviour). */
  const table = (...sources) => Object.assign(Object.create(null), ...sources);
  const put = (values, slot, value) => table(values, { [slot]: value });

  /* The `}` closing the placeholder opened at `start`, brackets nested (message.py:_closing_brace). */
  function closingBrace(source, start) {
    const stack = ["}"];
    let quote = null;
    for (let i = start + 1; i < source.length; i++) {
      const char = source[i];
      if (quote) {
        if (char === quote) quote = null;
      } else if (char === "'" || char === '"') {
        quote = char;
      } else if (char in OPENERS) {
        stack.push(OPENERS[char]);
      } else if (char === ")" || char === "]" || char === "}") {
        if (char !== stack[stack.length - 1]) break;
        stack.pop();
        if (!stack.length) return i;
      }
    }
    throw new TemplateSyntaxError(
      `placeholder opened at character ${start + 1} is never closed; write '{{' for a literal brace`);
  }

  /* Template text → [{literal}|{placeholder}] (MessageTemplate.parse). */
  function parse(source) {
    const parts = [];
    let literal = "";
    let i = 0;
    while (i < source.length) {
      const char = source[i];
      if (source.startsWith("{{", i) || source.startsWith("}}", i)) {
        literal += char;
        i += 2;
      } else if (char === "{") {
        const end = closingBrace(source, i);
        if (literal) { parts.push({ literal }); literal = ""; }
        const expression = source.slice(i + 1, end).trim();
        if (!expression) throw new TemplateSyntaxError(`empty placeholder {} at character ${i + 1}`);
        parts.push({ placeholder: expression });
        i = end + 1;
      } else if (char === "}") {
        throw new TemplateSyntaxError(`unmatched '}' at character ${i + 1}; write '}}' for a literal brace`);
      } else {
        literal += char;
        i += 1;
      }
    }
    if (literal) parts.push({ literal });
    return parts;
  }

  /* Characters a scan may examine, added up (message.py:Meter). */
  class Meter {
    constructor() { this.work = 0; }
  }

  /* text.find(piece, start, end), counting what the scan may have examined (message.py:_find). */
  function find(text, piece, start, end, meter) {
    let found = text.indexOf(piece, start);
    if (found >= 0 && found + piece.length > end) found = -1;
    meter.work += found < 0 ? end - start : found + piece.length - start;
    return found;
  }

  /* A template matched piece by piece: each fixed piece found in order, no backtracking. */
  class MessageTemplate {
    constructor(source) {
      this.source = source;
      this.parts = parse(source);
      this.pieces = [];
      let current = "";
      for (const part of this.parts) {
        if ("literal" in part) current += part.literal;
        else { this.pieces.push(current); current = ""; }
      }
      this.pieces.push(current);
      this.slots = this.parts.filter((p) => "placeholder" in p).map((p) => p.placeholder);
    }
    match(message, meter) { return this.fit(message, true, meter || new Meter()); }
    /* A text that holds this template's beginning, cut short (message.py:MessageTemplate.prefix). */
    prefix(text, meter, at = null) {
      meter = meter || new Meter();
      const pieces = this.pieces;
      if (pieces.length === 1 || [...pieces[0]].filter((c) => ALNUM.test(c)).length < MIN_PIECE) return null;
      if (at === null) at = find(text, pieces[0], 0, text.length, meter);
      if (at < 0) return null;
      let position = at + pieces[0].length;
      const newline = text.indexOf("\n", position);
      const end = newline < 0 ? text.length : newline;
      meter.work += end - position;
      const values = [];
      for (let index = 1; index < pieces.length; index++) {
        const piece = pieces[index];
        const found = piece ? find(text, piece, position, end, meter) : end;
        if (found < 0) {
          const value = text.slice(position, end);
          const close = closingQuote(pieces[index - 1], piece, value, meter);
          if (close >= 0) { values.push(value.slice(0, close)); break; }  // not the quoted name's
          let cut = 0;
          for (let k = Math.min(piece.length, value.length); k > 0; k--) {
            if (value.endsWith(piece.slice(0, k))) { cut = k; break; }
          }
          values.push(value.slice(0, value.length - cut));
          break;
        }
        values.push(text.slice(position, found));
        position = found + piece.length;
      }
      const named = table();
      for (let i = 0; i < Math.min(this.slots.length, values.length); i++) {
        if (!(this.slots[i] in named)) named[this.slots[i]] = values[i];
      }
      return named;
    }
    search(text, meter) { return this.fit(text, false, meter || new Meter()); }
    fit(text, whole, meter) {
      const pieces = this.pieces;
      const first = pieces[0], last = pieces[pieces.length - 1];
      let end, position;
      if (whole && pieces.length === 1) {
        meter.work += first.length;
        return text === first ? table() : null;
      }
      if (whole) {
        meter.work += first.length + last.length;
        end = text.length - last.length;
        if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return null;
        position = first.length;
      } else {
        const at = find(text, first, 0, text.length, meter);
        if (at < 0) return null;
        if (pieces.length === 1) return table();
        end = text.length;
        position = at + first.length;
      }
      const values = [];
      for (const piece of pieces.slice(1, -1)) {
        const found = find(text, piece, position, end, meter);
        if (found < 0) return null;
        values.push(text.slice(position, found));
        position = found + piece.length;
      }
      if (whole) {
        values.push(text.slice(position, end));
      } else {
        const found = find(text, last, position, end, meter);
        if (found < 0) return null;
        values.push(text.slice(position, found));
        if (first) {  // as message.py: the first piece nearest the next words starts it
          meter.work += values[0].length;
          const cut = values[0].lastIndexOf(first);
          if (cut >= 0) values[0] = values[0].slice(cut + first.length);
        }
      }
      return this.named(values);
    }
    /* Values by expression; null when a repeated expression stood for two texts. */
    named(values) {
      const named = table();
      for (let i = 0; i < this.slots.length; i++) {
        if (!(this.slots[i] in named)) named[this.slots[i]] = values[i];
        else if (named[this.slots[i]] !== values[i]) return null;
      }
      return named;
    }
    get literalText() { return this.parts.filter((p) => "literal" in p).map((p) => p.literal).join(" "); }
  }

  /* -- how much fixed text a template has (message.py:fixed_text, is_degenerate) -------------- */

  /* A quoted placeholder's value in the rest of a line cut short ends at its closing quote
     (message.py:_closing_quote). */
  const QUOTES = "'\"";
  function closingQuote(before, after, value, meter) {
    const quote = after.slice(0, 1);
    if (!quote || !QUOTES.includes(quote) || !before.endsWith(quote)) return -1;
    const close = value.indexOf(quote);
    meter.work += close < 0 ? value.length : close + 1;
    return close;
  }

  const MIN_FIXED = 8;
  const MIN_PIECE = 6;
  const FILLER = "\x00";
  const ALNUM = /[\p{L}\p{N}]/u;

  function fixedText(template) {
    const counts = template.pieces.map((piece) => [...piece].filter((char) => ALNUM.test(char)).length);
    return { total: counts.reduce((a, b) => a + b, 0), longest: Math.max(...counts) };
  }

  /* `generic`: the wordings every error of a kind shares (the index's `rules.generic`). */
  function isDegenerate(template, generic) {
    if (typeof template === "string") template = new MessageTemplate(template);
    const measure = fixedText(template);
    if (measure.total < MIN_FIXED) {
      return `its fixed text has ${measure.total} letters or digits (at least ${MIN_FIXED} needed): ` +
        "it would match almost any message";
    }
    if (!template.slots.length) return null;
    if (measure.longest < MIN_PIECE) {
      return `its longest fixed piece has ${measure.longest} letters or digits (at least ${MIN_PIECE} needed ` +
        "when there are placeholders): it would match almost any message";
    }
    const filled = template.pieces.join(FILLER);
    for (const wording of generic || []) {
      const values = new MessageTemplate(wording).match(filled);
      if (values !== null && Object.values(values).every((v) => v && !v.split(FILLER).join(""))) {
        return `it fixes nothing beyond the wording every such error has (${wording}): ` +
          "its placeholders hold whatever identifies the error";
      }
    }
    return null;
  }

  /* -- the rules, as the index ships them (errorkb/lookup/_rules.py) --------------------------- */

  const GLOBAL = new Set(["ANSI", "INVISIBLE", "HTML_ENTITY", "ESCAPED_TRACEBACK", "REPR_TRACEBACK", "LINE_RECORD", "JSON_ESCAPE", "PREFIX", "LOG_RECORD", "GROUP_MARGIN", "SUFFIX", "EXCEPTION_LINE", "INLINE_EXCEPTION", "TRACEBACK",
    "TRACEBACK_END", "FRAME_LINE", "FRAME", "ARROW_LINE", "PYTEST_DEF", "PYTEST_FAILING", "RICH_TOP", "RICH_BOTTOM", "RICH_FOLD", "RICH_WRAP",
    "RICH_EDGE", "FRAME_WRAP", "FRAME_NAME_WRAP", "CUT_BLANK_END", "LINK", "QUOTED", "QUOTE_MARK", "DIFF_HUNK", "DIFF_CHANGE", "DOCTEST_EXPECTED", "LINE_END", "CHAINED", "RELEASE_NUMBER", "BESIDE_NUMBER", "NAME", "SENTENCE_END",
    "WARNING_HEADER", "REPLACED"]);

  const TEMPLATES = new Set(["STATED", "RAN_AFTER"]);  // written with `{name}` (`{Name}`): compiled once the library is known

  /* The index's `rules` made ready: each pattern compiled (the global flag where it is scanned). */
  function compileRules(rules) {
    if (!rules || !rules.patterns) throw new Error("the index carries no lookup rules (rebuild the site)");
    const patterns = table();
    for (const [name, source] of Object.entries(rules.patterns)) {
      patterns[name] = TEMPLATES.has(name) ? source : new RegExp(source, GLOBAL.has(name) ? "g" : "");
    }
    const types = table();
    for (const [name, source] of Object.entries(rules.types || {})) types[name] = source ? new RegExp(source) : null;
    return {
      cap: rules.cap, chain: rules.chain, relays: rules.relays, whitespace: rules.whitespace, maxPath: rules.max_path, patterns, types,
      tailMin: rules.tail_min, writtenMin: rules.written_min, tailAfter: String(rules.tail_after || ""),
      toldWindow: rules.told_window,
      headMin: rules.head_min, headWordMin: rules.head_word_min, headWordRest: rules.head_word_rest, headClose: String(rules.head_close || ""), diffKept: String(rules.diff_kept || ""),
      trailingPunctuation: String(rules.trailing_punctuation || ""),
      htmlEntities: table(rules.html_entities), jsonEscapes: table(rules.json_escapes), frameWraps: rules.frame_wraps, jsonDepth: rules.json_depth, tagMax: rules.tag_max, tagsMax: rules.tags_max, tracebackText: rules.traceback_text, handlingText: String(rules.handling_text || ""),
      defaultTypes: table(rules.default_types), builtinTypes: new Set(rules.builtin_types || []),
      confirming: new Set(rules.confirming || []), generic: rules.generic || [],
      nameChars: String(rules.name_chars || ""), dottedNameChars: String(rules.dotted_name_chars || ""),
      lowerFirst: String(rules.lower_first || ""),
      onClass: { instance: String((rules.on_class || {}).instance || ""), prefix: String((rules.on_class || {}).prefix || ""),
        class: String((rules.on_class || {}).class || "") },
      hintWords: rules.hint_words || {},
    };
  }

  /* -- reading a paste (errorkb/lookup/_paste.py) --------------------------------------------- */

  function rstrip(text, ws) {
    let end = text.length;
    while (end > 0 && ws.includes(text[end - 1])) end--;
    return text.slice(0, end);
  }
  function lstrip(text, ws) {
    let start = 0;
    while (start < text.length && ws.includes(text[start])) start++;
    return text.slice(start);
  }
  function strip(text, ws) {
    return rstrip(lstrip(text, ws), ws);
  }

  const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
  const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;
  const SURROGATE = /[\ud800-\udfff]/;
  /* Code points in `text` (Python's len); one native scan when it has no astral character. */
  function points(text) {
    if (!SURROGATE.test(text)) return text.length;
    let count = text.length;
    for (let i = 1; i < text.length; i++) if (isLow(text.charCodeAt(i)) && isHigh(text.charCodeAt(i - 1))) count--;
    return count;
  }

  /* The paste's last `cap` characters (code points, never half a surrogate pair), from the first
   * line that starts inside them; when that leaves nothing but blanks (one long last line, then a
   * line break), the characters themselves: a paste is cut, never dropped. The matcher and the
   * paste box (errorkb.js) both cut with it. */
  function keepTail(text, cap) {
    if (text.length <= cap) return text;
    let start = text.length, count = 0;
    while (start > 0 && count < cap) {
      start -= start >= 2 && isLow(text.charCodeAt(start - 1)) && isHigh(text.charCodeAt(start - 2)) ? 2 : 1;
      count++;
    }
    if (start === 0) return text;
    const tail = text.slice(start);
    const newline = tail.indexOf("\n");
    const fromLine = newline >= 0 ? tail.slice(newline + 1) : "";
    return /[^ \t\r\n]/.test(fromLine) ? fromLine : tail;
  }

  const plainQuotes = (text) => text.replaceAll("\u2018", "'").replaceAll("\u2019", "'")
    .replaceAll("\u201c", '"').replaceAll("\u201d", '"');

  /* `logged`, when given (a Set), receives the numbers of the normalised text's lines that carried a log record's
   * prefix (_paste.py:normalize, logged_lines). */
  function normalize(text, R, meter, logged) {
    meter = meter || new Meter();
    meter.work += (35 + R.frameWraps) * text.length;  // the passes below each read the text once
    text = text.replaceAll("\ufeff", "").replaceAll("\u00a0", " ");
    const decode = (body) => body.replace(R.patterns.JSON_ESCAPE,
      (escape, x, u, big, character) => unescaped(escape, x || u || big, character, R));
    meter.work += text.length;
    if (text.includes('\\n"')) {  // a record that holds one line ends it so: Docker's log of plain output
      meter.work += text.length;
      text = text.replace(R.patterns.LINE_RECORD, (whole, before, line) => before + decode(line));
    }
    for (let pass = 0; pass < R.jsonDepth; pass++) {  // a JSON log record's traceback: one layer a pass, until none is left
      meter.work += text.length;
      if (!text.includes(R.tracebackText + "\\")) break;  // an escaped traceback's marker: a backslash follows it
      meter.work += 2 * text.length;
      const string = (whole, before, body) => before + "\n" + decode(body) + "\n";
      const decoded = text.replace(R.patterns.ESCAPED_TRACEBACK, string).replace(R.patterns.REPR_TRACEBACK, string);
      if (decoded === text) break;
      text = decoded;
    }
    text = text.replace(R.patterns.INVISIBLE, "");  // marks no terminal prints (_rules.py:INVISIBLE)
    text = text.replace(R.patterns.HTML_ENTITY, (entity) => R.htmlEntities[entity]);  // read once
    text = plainQuotes(text);
    text = text.replaceAll("\r\n", "\n").replaceAll("\r", "\n").replaceAll("\u2028", "\n").replaceAll("\u2029", "\n");
    text = text.replace(R.patterns.ANSI, "");
    text = text.replace(R.patterns.QUOTED, (run) => run.replace(R.patterns.QUOTE_MARK, ""));  // a Markdown quote
    text = text.replace(R.patterns.DIFF_HUNK, (hunk) => hunkText(hunk, R));  // a unified diff: the text it leaves
    text = text.replace(R.patterns.DIFF_CHANGE, (change) => changeText(change, R));  // a change without its header
    const cutBlank = cutBlankEnds(text, R);  // before LINE_END takes the blanks
    text = text.replace(R.patterns.LINE_END, "");  // spaces at a line's end
    text = text.replace(R.patterns.DOCTEST_EXPECTED, (whole, expected, got) => expected + "\n" + got);  // not what it did
    text = byProcess(text, R);  // each process's lines together (_paste.py:by_process)
    const records = logged ? loggedLines(text, R) : [], count = logged ? newlines(text, 0, text.length) : 0;
    text = text.replace(R.patterns.PREFIX, "");
    text = text.replace(R.patterns.GROUP_MARGIN, "");  // an exception group's margin and separators
    text = text.replace(R.patterns.LINK, (whole, shown) => shown);  // a notebook's Markdown link: its text
    text = text.replace(R.patterns.RICH_TOP, () => R.tracebackText);  // rich's box (_rules.py)
    text = richMessage(text, R);
    text = text.replace(R.patterns.RICH_BOTTOM, "");
    text = text.replace(R.patterns.RICH_FOLD, "");
    text = text.replace(R.patterns.RICH_WRAP, " ");
    text = text.replace(R.patterns.RICH_EDGE, "");
    const width = wrapWidth(text, R);
    for (let pass = 0; pass < R.frameWraps; pass++) {  // a path broken twice is joined in two passes
      let joined = false;
      text = text.replace(R.patterns.FRAME_WRAP, (whole, line) => {  // the blank back where Python prints one
        joined = true;
        return R.patterns.FRAME_CUT_BLANK.test(line) ? line + " " : line;
      });
      if (!joined) break;
    }
    if (width) text = exceptionUnwrapped(text, width, R, cutBlank);
    text = text.replace(R.patterns.FRAME_NAME_WRAP, (whole, indent, line, rest) => indent + line + rest);
    text = text.replace(R.patterns.SUFFIX, "");
    text = text.replace(R.patterns.LINE_END, "");  // again: a link's text or the hint's removal may leave some
    if (logged) renumbered(records, count, text, R).forEach((number) => logged.add(number));
    return strip(text, R.whitespace);
  }

  const codePoints = (line) => { let count = 0; for (const _ of line) count++; return count; };

  /* The width a terminal cut the frame lines at, or 0 (_paste.py:_wrap_width, _rules.py:EXCEPTION_WRAP_END). */
  function wrapWidth(text, R) {
    let first = -1, width = 0;
    const cut = (at, length) => { first = first < 0 ? at : Math.min(first, at); width = Math.max(width, length); };
    for (const frame of text.matchAll(R.patterns.FRAME_WRAP)) {  // a cut after a blank counts it (FRAME_CUT_BLANK)
      cut(frame.index, codePoints(frame[1]) + (frame[0] === frame[1] + "\n" && R.patterns.FRAME_CUT_BLANK.test(frame[1]) ? 1 : 0));
    }
    for (const frame of text.matchAll(R.patterns.FRAME_NAME_WRAP)) cut(frame.index, codePoints(frame[1]) + codePoints(frame[2]));
    if (first < 0) return 0;
    return text.slice(first).split("\n").every((line) => codePoints(line) <= width) ? width : 0;
  }

  /* The text of each line that ends with exactly one blank, a cut right after it, and that blank; none when the paste
   * pads its lines, none whose text also stands as a whole line without it or with another blank
   * (_paste.py:_cut_blank_ends, _rules.py:CUT_BLANK_END). */
  function cutBlankEnds(text, R) {
    const noted = new Map();
    if (R.patterns.PADDED_END.test(text)) return noted;
    for (const line of text.matchAll(R.patterns.CUT_BLANK_END)) {
      const blank = line[0].slice(-1);
      noted.set(line[1], (noted.has(line[1]) ? noted.get(line[1]) : blank) === blank ? blank : "");
    }
    if (noted.size) for (const bare of text.split("\n")) noted.delete(bare);
    for (const [line, blank] of noted) if (!blank) noted.delete(line);
    return noted;
  }

  /* An exception line of exactly `width` characters joined with the lines it goes on at; a part one shorter whose
   * blank LINE_END took (`cutBlank`) is `width` long, its blank put back (_paste.py:_exception_unwrapped). */
  function exceptionUnwrapped(text, width, R, cutBlank) {
    const lines = text.split("\n"), out = [];
    const end = new RegExp(R.patterns.EXCEPTION_WRAP_END.source, "y"), exception = new RegExp(R.patterns.TRACEBACK_END.source, "y");
    const filled = (part) => { const length = codePoints(part); return length === width || (length === width - 1 && cutBlank.has(part)); };
    for (let at = 0; at < lines.length; at++) {
      let part = lines[at];
      const parts = [part];
      exception.lastIndex = 0;
      if (filled(part) && exception.test(part)) {
        for (;;) {
          if (!filled(part) || at + 1 >= lines.length) break;
          end.lastIndex = 0;
          if (end.test(lines[at + 1])) break;
          at++;
          parts.push((codePoints(part) < width ? cutBlank.get(part) : "") + lines[at]);
          part = lines[at];
        }
      }
      out.push(parts.join(""));
    }
    return out.join("\n");
  }

  /* One JSON escape as its character, any other as written (_paste.py:_unescaped). */
  function unescaped(escape, code, character, R) {
    if (code !== undefined) {
      const value = parseInt(code, 16);
      return (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF ? escape : String.fromCodePoint(value);
    }
    return character in R.jsonEscapes ? R.jsonEscapes[character] : escape;
  }

  function newlines(text, from, to) {
    let count = 0;
    for (let at = text.indexOf("\n", from); at >= 0 && at < to; at = text.indexOf("\n", at + 1)) count++;
    return count;
  }

  /* The numbers of the lines that start with a log record's prefix (_paste.py:logged_lines). */
  function loggedLines(text, R) {
    const numbers = [];
    let line = 0, done = 0;
    for (const record of text.matchAll(R.patterns.LOG_RECORD)) {
      line += newlines(text, done, record.index);
      done = record.index;
      numbers.push(line);
    }
    return numbers;
  }

  /* `records` as numbers of the lines of the stripped text; every line where lines were joined (_paste.py:_renumbered). */
  function renumbered(records, count, text, R) {
    let blank = 0;
    while (blank < text.length && R.whitespace.includes(text[blank])) blank++;
    const lead = newlines(text, 0, blank);
    if (newlines(text, 0, text.length) !== count) return Array.from({ length: count + 1 }, (_, number) => number);
    return records.filter((number) => number >= lead).map((number) => number - lead);
  }

  /* The lines of each process together, the processes in the order their last lines come (_paste.py:by_process). */
  function byProcess(text, R) {
    const lines = text.split("\n");
    const tags = learnedTags(lines, R);
    const keys = [], kept = [];
    for (const line of lines) {
      const marker = R.patterns.PROCESS.exec(line);
      const tag = marker ? "" : (tags.find((one) => line.startsWith(one)) || "");
      keys.push(marker ? marker[0] : tag);
      kept.push(line.slice(tag.length));
    }
    if (new Set(keys).size < 2) return tags.length ? kept.join("\n") : text;
    const last = new Map(), groups = new Map();
    keys.forEach((key, index) => {
      last.set(key, index);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(kept[index]);
    });
    return [...groups.keys()].sort((a, b) => last.get(a) - last.get(b)).flatMap((key) => groups.get(key)).join("\n");
  }

  /* The tags no rule knows that the paste's lines carry, longest first (_paste.py:learned_tags): the text before
   * Python's traceback marker on its line, when a later line starts with it too. */
  function learnedTags(lines, R) {
    const found = new Map();  // each tag, and the line it was read on
    for (let number = 0; number < lines.length; number++) {
      const at = lines[number].indexOf(R.tracebackText);
      if (at <= 0) continue;
      const tag = lines[number].slice(0, at);
      if ([...tag].length > R.tagMax || found.has(tag) || !R.patterns.TAG_CHARACTER.test(tag)
        || R.patterns.PROCESS.exec(tag) !== null) continue;
      R.patterns.PREFIX.lastIndex = 0;
      const known = R.patterns.PREFIX.exec(tag);
      R.patterns.PREFIX.lastIndex = 0;
      if (known !== null && known.index === 0 && known[0].length === tag.length) continue;
      found.set(tag, number);
      if (found.size >= R.tagsMax) break;
    }
    return [...found].filter(([tag, number]) => lines.slice(number + 1).some((line) => line.startsWith(tag)))
      .map(([tag]) => tag).sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  }

  /* A change pasted without its hunk's header (_paste.py:_change_text): its added lines without their mark; a run of
   * removed lines with none added after it stays. */
  function changeText(change, R) {
    const lines = change.split("\n");
    if (!lines[lines.length - 1].startsWith("+")) return change;
    return lines.filter((line) => R.diffKept.includes(line[0])).map((line) => line.slice(1)).join("\n");
  }

  /* A unified diff's hunk as the text it leaves (_paste.py:_hunk_text): its header, then its added and context lines
   * without their mark; its removed lines are no longer said. */
  function hunkText(hunk, R) {
    const [header, ...lines] = hunk.split("\n");
    return [header, ...lines.filter((line) => R.diffKept.includes(line[0])).map((line) => line.slice(1))].join("\n");
  }

  /* The exception's text rich printed below each box, unwrapped (_paste.py:_rich_message): a line whose next
   * line's first word would not have fitted on it within the box's width was wrapped there. */
  function richMessage(text, R) {
    const out = [];
    let done = 0;
    for (const bottom of text.matchAll(R.patterns.RICH_BOTTOM)) {
      if (bottom.index < done) continue;  // inside the text joined after the box before
      const width = points(strip(bottom[0], R.whitespace));
      const start = bottom.index + bottom[0].length + 1;
      if (start >= text.length) break;
      let end = text.indexOf("\n\n", start);
      if (end < 0) end = text.length;
      const lines = text.slice(start, end).split("\n");
      out.push(text.slice(done, start), lines[0]);
      for (let i = 1; i < lines.length; i++) {  // each printed line and the one before it
        const last = lines[i - 1], word = lines[i].split(" ", 1)[0];
        if (!word || points(rstrip(last, " \t")) + 1 + points(word) <= width) out.push("\n");
        else if (!last.endsWith(" ") && !last.endsWith("\t")) out.push(" ");
        out.push(lines[i]);
      }
      done = end;
    }
    return out.length ? out.join("") + text.slice(done) : text;
  }

  function candidates(text, R, meter) {
    meter = meter || new Meter();
    meter.work += 2 * text.length;  // the two scans: exception lines, exception names inside lines
    const lines = exceptionLines(text, R, meter).slice(-R.chain);
    const found = [];
    for (let chain = 0; chain < lines.length; chain++) {
      const { at, name, first } = lines[lines.length - 1 - chain];
      found.push({ message: strip(first, R.whitespace), exception: name, chain, at });
      const after = chain ? lines[lines.length - chain].at - 1 : text.length;
      const more = messageLines(text, at, after, R, meter);
      if (more) found.push({ message: strip(first + "\n" + more, R.whitespace), exception: name, chain, at });
    }
    found.push({ message: text, exception: null, chain: R.chain, at: -1 });
    return found;
  }

  /* Every exception line, in order: a line that starts with one, and an exception's name inside a line
   * that is not such a line's own; never a line an earlier message goes on over (_paste.py:exception_lines). */
  function exceptionLines(text, R, meter) {
    meter = meter || new Meter();
    const whole = [], names = new Set();
    for (const m of text.matchAll(R.patterns.EXCEPTION_LINE)) {
      whole.push({ at: m.index, name: m[1], first: m[2], end: m.index + m[0].length });
      names.add(m.index + m[0].indexOf(m[1]));
    }
    const inside = [];
    for (const m of text.matchAll(R.patterns.INLINE_EXCEPTION)) {
      if (!names.has(m.index) && strip(m[2], R.whitespace)) {
        inside.push({ at: m.index, name: m[1], first: m[2], end: m.index + m[0].length });
      }
    }
    const found = inside.length ? whole.concat(inside).sort((a, b) => a.at - b.at) : whole;
    const kept = [];
    let covered = -1, ends = -1;
    for (const one of found) {
      if (ends < one.at && one.at < covered) continue;
      if (one.at > ends) {
        ends = lineEnd(text, one.at);
        covered = ends + 1 + messageLines(text, one.at, undefined, R, meter).length;
      }
      kept.push(one);
    }
    return kept;
  }

  /* The lines a message goes on over after its exception line, up to `end`: the one rule of where a message ends
   * (_paste.py:message_lines). */
  function messageLines(text, at, end, R, meter) {
    end = end === undefined ? text.length : end;
    const depth = indentOf(text, text.lastIndexOf("\n", at - 1) + 1);
    const from = lineEnd(text, at) + 1;
    let start = from, kept = from;
    while (0 < start && start < end) {
      const stop = lineEnd(text, start);
      const line = text.slice(start, Math.min(stop, end));
      meter.work += line.length + 1;
      if (firstMatch(R.patterns.STOP_LINE, line) || startsRecord(line, depth, R)) break;
      kept = Math.min(stop, end);
      start = stop + 1;
    }
    return kept > from ? text.slice(from, kept) : "";
  }

  function lineEnd(text, at) {
    const end = text.indexOf("\n", at);
    return end < 0 ? text.length : end;
  }

  function indentOf(text, begin) {
    let at = begin;
    while (at < text.length && (text[at] === " " || text[at] === "\t")) at++;
    return at - begin;
  }

  /* A line no deeper than the exception line's that starts another record (_paste.py:_starts_record). */
  function startsRecord(line, depth, R) {
    const lead = indentOf(line, 0);
    if (lead > depth) return false;
    return Boolean(firstMatch(R.patterns.STOP_LINE, line.slice(lead)) || firstMatch(R.patterns.EXCEPTION_LINE, line) ||
                   firstMatch(R.patterns.INLINE_EXCEPTION, line));
  }

  /* The first match of a pattern compiled with the global flag, from the start of `text`. */
  function firstMatch(pattern, text) {
    pattern.lastIndex = 0;
    const found = pattern.exec(text);
    pattern.lastIndex = 0;
    return found;
  }

  /* Every frame, outermost first, with its failing line (_paste.py:frames): the line under it (Python,
   * pytest's short entries), the arrow in its block (a notebook's, which also gives IPython 7 the line
   * number), or the `>` line and the `def` of the source above a pytest long entry's location line. */
  function frames(text, R, meter) {
    meter = meter || new Meter();
    meter.work += 3 * text.length;
    const found = [];
    const lines = [...text.matchAll(R.patterns.FRAME_LINE)];
    for (let index = 0; index < lines.length; index++) {
      const m = lines[index];
      const end = m.index + m[0].length;
      const after = index + 1 < lines.length ? lines[index + 1].index : text.length;
      const before = index ? lines[index - 1].index + lines[index - 1][0].length : 0;
      const indent = m[0].length - m[0].replace(/^[ \t]+/, "").length;
      let path, number, func, at = m.index, code = "";
      if (m[1] !== undefined) {  // Python
        [path, number, func] = [m[1], m[2], m[5]];
        code = codeLine(text, end + 1, indent, R);
      } else if (m[3] !== undefined || m[6] !== undefined || m[11] !== undefined) {  // IPython 8, 7, rich
        const arrow = end < after ? firstMatch(R.patterns.ARROW_LINE, text.slice(end + 1, after)) : null;
        code = arrow ? strip(arrow[2], R.whitespace) : "";
        if (m[11] !== undefined) [path, number, func] = [m[11], m[12], m[13]];
        else if (m[3] !== undefined) [path, number, func] = [m[3], m[4], m[5]];
        else [path, number, func] = [m[6], arrow && arrow[1] ? arrow[1] : "0", m[7]];
      } else if (m[10] !== undefined) {  // pytest, a short entry
        [path, number, func] = [m[8], m[9], m[10]];
        code = codeLine(text, end + 1, indent, R);
      } else {  // pytest, a long entry: the source above
        [path, number, at] = [m[8], m[9], before];
        const block = text.slice(before, m.index);
        const named = firstMatch(R.patterns.PYTEST_DEF, block);
        func = named ? named[1] : "";
        let marked = null;
        for (const one of block.matchAll(R.patterns.PYTEST_FAILING)) marked = one;
        code = marked ? strip(marked[1], R.whitespace) : "";
      }
      func = strip(func || "", R.whitespace).split("(", 1)[0];
      found.push({ path: path.slice(0, R.maxPath).replaceAll("\\", "/"), line: Number(number.slice(0, 9)),
        function: func, code, at });
    }
    return found;
  }

  function codeLine(text, start, indent, R) {
    if (start >= text.length) return "";
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end >= 0 ? end : text.length);
    if (R.patterns.MARKERS.test(line) || strip(line, R.whitespace).startsWith("File ")) return "";
    const code = R.patterns.CODE_LINE.exec(line);
    if (code) return strip(code[1], R.whitespace);
    if (indent || firstMatch(R.patterns.EXCEPTION_LINE, line) || R.patterns.STOP_LINE.test(line) ||
        firstMatch(R.patterns.FRAME_LINE, line)) return "";
    return strip(line, R.whitespace);
  }

  function arrows(text, R, meter) {
    meter.work += text.length;
    return [...text.matchAll(R.patterns.ARROW_LINE)].map((m) => ({ path: "", line: 0, function: "",
      code: strip(m[2], R.whitespace), at: m.index }));
  }

  function markers(text, R, meter) {
    meter.work += text.length;
    return [...text.matchAll(R.patterns.TRACEBACK)].map((m) => m.index);
  }

  /* Each traceback-ending exception line's end and what it says (_paste.py:ends). */
  function ends(text, R, meter) {
    meter.work += text.length;
    return [...text.matchAll(R.patterns.TRACEBACK_END)].map((m) => [m.index + m[0].length, strip(m[0], R.whitespace)]);
  }

  function saidAt(text, at, R) {
    const end = text.indexOf("\n", at);
    return strip(text.slice(at, end >= 0 ? end : text.length), R.whitespace);
  }

  /* Where the traceback of the exception stated at `at` starts (_paste.py:traceback_start). */
  function tracebackStart(starts, ended, at, said) {
    const index = bisectLeft(starts, at);
    const start = index ? starts[index - 1] : -1;
    let low = 0, high = ended.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (ended[mid][0] < at) low = mid + 1; else high = mid;
    }
    for (let i = low; i > 0 && ended[i - 1][0] > start;) {
      i -= 1;
      if (ended[i][1] !== said) return ended[i][0];
    }
    return start;
  }

  /* Where each chain sentence starts (_paste.py:chained). */
  function chained(text, R, meter) {
    meter.work += text.length;
    return [...text.matchAll(R.patterns.CHAINED)].map((m) => m.index);
  }

  const lineStart = (text, at) => (at > 0 ? text.lastIndexOf("\n", at - 1) + 1 : 0);

  /* Where the lines start that state the error the paste ended with, or null (_paste.py:final_lines). */
  function finalLines(text, options, ended, links, R, starts, framed = true, logged = new Set()) {
    const lines = [...new Set(options.filter((one) => one.at >= 0 && one.exception !== null
      && R.patterns.FATAL_NAME.test(one.exception)).map((one) => one.at))].sort((a, b) => a - b);
    const bare = bareEnd(text, lines.length ? lines[lines.length - 1] : -1, ended, starts || [], R);
    if (!lines.length && bare < 0) return null;
    let heads = [bare];
    if (bare < 0) {
      const last = lines[lines.length - 1];
      const said = saidAt(text, last, R);
      const cut = said.endsWith("...") ? said.slice(0, -3) : "";
      const restated = lines.slice(0, -1).filter((at) => {
        const other = saidAt(text, at, R);
        return other === said || (cut !== "" && other.startsWith(cut));
      });
      heads = [last, ...restated].map((at) => lineStart(text, at));
      if (!framed) heads.push(...listed(text, lines, logged, R));
    }
    const final = new Set();
    for (let start of heads) {
      while (!final.has(start)) {
        final.add(start);
        let index = 0, high = ended.length;  // the traceback-ending lines before this line
        while (index < high) {
          const mid = (index + high) >> 1;
          if (ended[mid][0] < start) index = mid + 1; else high = mid;
        }
        if (!index) break;
        const before = ended[index - 1][0];
        const link = bisectLeft(links, before);
        if (link >= links.length || links[link] >= start || !ties(text, links[link], start, before, R)) break;
        start = lineStart(text, before - 1);
      }
    }
    return final;
  }

  /* Where the exception lines listed directly above the last one start, each just before the next
   * (_paste.py:listed): a paste with no traceback that ends with them ended with each; a line that carried a log
   * record's prefix (`logged`, line numbers) is none of them, and ends the list; so is a line that is no exception
   * line Python or a test runner printed (LISTED_LEAD, PRINTED_NAME: a name in prose, a print's `Error: ...`). */
  function listed(text, lines, logged, R) {
    const found = [];
    let start = lines.length ? lineStart(text, lines[lines.length - 1]) : 0;
    let number = newlines(text, 0, start);
    if (logged.has(number)) return found;
    for (let i = lines.length - 2; i >= 0; i--) {
      if (lineStart(text, lines[i]) === start) continue;  // a name inside the same line (a wrapper's `failed: ...`)
      if (!start || lineStart(text, lines[i]) !== lineStart(text, start - 1) || logged.has(number - 1)
        || !R.patterns.LISTED_LEAD.test(text.slice(lineStart(text, lines[i]), lines[i]))
        || R.patterns.PRINTED_NAME.test(text.slice(lines[i], start))) break;
      start = lineStart(text, lines[i]);
      number -= 1;
      found.push(start);
    }
    return found;
  }

  /* A later traceback's bare exception line (`AssertionError`), where its line starts, or -1 (_paste.py:bare_end). */
  function bareEnd(text, last, ended, starts, R) {
    for (let i = ended.length - 1; i >= 0; i--) {
      const [end, said] = ended[i];
      const start = lineStart(text, end - 1);
      if (start <= last) return -1;
      if (said.includes(":") || !R.patterns.FATAL_NAME.test(said)) continue;
      const marker = bisectLeft(starts, last + 1);
      return marker < starts.length && starts[marker] < start ? start : -1;
    }
    return -1;
  }

  /* Whether the chain sentence at `link` ties the exception line at `start` to the one ending at `before`
   * (_paste.py:ties): a direct cause always; "During handling" only when the handler raised it or restates it. */
  function ties(text, link, start, before, R) {
    if (!text.startsWith(R.handlingText, link)) return true;
    if (R.patterns.RERAISE.test(failingLine(text, link, start, R))) return true;
    const earlier = saidAt(text, lineStart(text, before - 1), R);
    const colon = earlier.indexOf(": ");
    if (colon < 0) return false;
    const message = strip(earlier.slice(colon + 2), R.whitespace);
    return message !== "" && saidAt(text, start, R).includes(message);
  }

  /* The last line before `start`, back to `stop`, that is no blank or position markers (_paste.py:_failing_line). */
  function failingLine(text, stop, start, R) {
    let end = start - 1;
    while (end > stop) {
      const newline = end > 0 ? text.lastIndexOf("\n", end - 1) : -1;
      const begin = Math.max(newline >= stop ? newline + 1 : stop, stop);
      const line = text.slice(begin, end);
      if (!R.patterns.MARKERS.test(line)) return line;
      end = begin - 1;
    }
    return "";
  }

  /* Whether the traceback from the marker at `start` to the exception line at `at` is shown whole
   * (_paste.py:complete). */
  function complete(text, start, at, R, meter) {
    if (start < 0 || at < 0 || !text.startsWith(R.tracebackText, start)) return false;
    const body = text.indexOf("\n", start) + 1, end = lineStart(text, at);
    if (body <= 0 || body >= end) return false;
    meter.work += end - body;
    const lines = text.slice(body, end - 1).split("\n");
    const first = R.patterns.STACK_LINE.exec(lines[0]);
    return first !== null && first[1] !== undefined && lines.every((line) => R.patterns.STACK_LINE.test(line));
  }

  function tracebackOf(found, start, at) {
    if (at < 0) return found;
    return found.filter((frame) => start <= frame.at && frame.at < at);
  }

  /* The frames an exception line states the error before (_paste.py:frames_after, corpus h299). */
  function framesAfter(found, text, at, starts, ended, R) {
    const end = at >= 0 ? text.indexOf("\n", at) : -1;
    if (end < 0) return [];
    const index = bisectLeft(starts, end);
    const stop = index < starts.length ? starts[index] : text.length;
    const mine = found.filter((frame) => end < frame.at && frame.at < stop);
    if (!mine.length || mine[0].at !== end + 1) return [];
    const said = saidAt(text, at, R);
    for (const [position, what] of ended) {
      if (position <= end) continue;
      if (position > stop) break;
      if (what !== said) return [];
    }
    return mine;
  }

  const escapeRe = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, (m) => "\\" + m);

  /* The paste's statements of a release of `library`, but those whose name ends another distribution's written
   * with blanks or any separator: `others`, the words before the library's name in such names (_paste.py:statements). */
  function statements(text, library, R, meter, others) {
    const since = ranFrom(text, library, R, meter);
    meter.work += text.length - since;
    const named = library.slice(0, 1).toUpperCase() + library.slice(1);  // `{Name}`: the name as prose capitalises it
    const pattern = new RegExp(R.patterns.STATED.replaceAll("{name}", escapeRe(library))
      .replaceAll("{Name}", escapeRe(named)), "g");
    pattern.lastIndex = since;
    return [...text.matchAll(pattern)].filter((m) => !(others.length
      && (text.startsWith(library, m.index) || text.startsWith(named, m.index))
      && endsAnother(text, m.index, others, meter)));
  }

  /* Where statements of a release start counting: the last installer's record a run's traceback follows directly,
     past its group 1 (uv's header and lines before the library's `+` line) (_paste.py:ran_from). */
  function ranFrom(text, library, R, meter) {
    meter.work += text.length;
    let last = 0;
    for (const m of text.matchAll(new RegExp(R.patterns.RAN_AFTER.replaceAll("{name}", escapeRe(library)), "g"))) {
      last = m.index + (m[1] || "").length;
    }
    return last;
  }

  const SEPARATORS = " \t-_.";  // what joins a distribution's name's words as users write it (_paste.py)
  const ASCII_WORD = /[A-Za-z0-9]/;

  /* Whether the words before `at` are one of `others`' (_paste.py:_ends_another). */
  function endsAnother(text, at, others, meter) {
    const longest = Math.max(...others.map((one) => one.length));
    const words = [];
    let end = at;
    while (words.length < longest) {
      let stop = end;
      while (stop > 0 && SEPARATORS.includes(text[stop - 1])) stop -= 1;
      let start = stop;
      while (start > 0 && ASCII_WORD.test(text[start - 1])) start -= 1;
      meter.work += end - start;
      if (stop === end || start === stop) return false;
      words.unshift(text.slice(start, stop).toLowerCase());
      if (others.some((one) => one.length === words.length && one.every((w, i) => w === words[i]))) return true;
      end = start;
    }
    return false;
  }

  /* Every release the paste states, each once, first stated first (_paste.py:stated_releases). */
  function statedReleases(text, library, R, meter, others = []) {
    if (!library) return [];
    const found = [], told = new Map(), asked = new Map(), comment = new Map(), listed = new Map();
    const gone = replaced(text, R, meter);  // what a transcript replaced states none (_paste.py:replaced)
    const matches = statements(text, library, R, meter, others)
      .filter((m) => !inSpans(gone, m.index + m[0].length - m[1].length));
    const own = new Map();  // a line's statements' starts
    for (const m of matches) {
      const at = m.index + m[0].length - m[1].length, start = lineStart(text, at);
      if (!own.has(start)) own.set(start, new Set());
      own.get(start).add(at - start);
    }
    for (const m of matches) {
      const at = m.index + m[0].length - m[1].length;
      const start = lineStart(text, at);
      if (!told.has(start)) {  // each line read once (_paste.py: a line that says it works states no release)
        let end = text.indexOf("\n", at);
        if (end < 0) end = text.length;
        meter.work += end - start;
        const line = text.slice(start, end);
        told.set(start, toldWorking(line, nextLine(text, end, meter), R, own.get(start)));
        asked.set(start, [...line.matchAll(R.patterns.SENTENCE_END)]
          .map((one) => [start + one.index, one[0] === "?"]));
        const marker = R.patterns.COMMENT.exec(line);  // a comment's marker: what follows is not in effect
        comment.set(start, marker === null ? end : start + marker.index);
      }
      if (!told.get(start) && !isAsked(asked.get(start), at + m[1].length)
        && !toldOther(text, start, m.index, at + m[1].length, R, meter, comment.get(start) < m.index)
        && !listedNotFound(text, start, listed, R, meter)) found.push(m[1]);
    }
    return [...new Set(found)];
  }

  /* Whether a statement's line is an item of a list an installer printed of the packages it could not find
     (_paste.py:_listed_not_found). */
  function listedNotFound(text, start, listed, R, meter) {
    if (firstMatch(R.patterns.LIST_ITEM, text.slice(start, lineEnd(text, start))) === null) return false;
    const path = [];
    let at = start, result = false, known = false;
    while (!(known = listed.has(at))) {
      path.push(at);
      if (at === 0) break;
      const above = lineStart(text, at - 1);
      const line = text.slice(above, at - 1);
      meter.work += line.length + 1;
      if (strip(line, R.whitespace) && firstMatch(R.patterns.LIST_ITEM, line) === null) {
        result = firstMatch(R.patterns.NOT_FOUND_HEADER, line) !== null;
        break;
      }
      at = above;
    }
    if (known) result = listed.get(at);
    for (const one of path) listed.set(one, result);
    return result;
  }

  /* Whether a statement names a release to get, one required, one of the library's history or an environment in a
     shell's prompt, or follows a comment's marker (_paste.py:_told_other). */
  function toldOther(text, start, at, end, R, meter, commented = false) {
    let stop = text.indexOf("\n", end);
    if (stop < 0) stop = text.length;
    const before = text.slice(Math.max(start, at - R.toldWindow), at);
    const after = text.slice(end, Math.min(stop, end + R.toldWindow));
    meter.work += before.length + after.length;
    const prompt = at - start <= R.toldWindow && R.patterns.PROMPT_OPEN.test(before)
      && R.patterns.PROMPT_CLOSE.test(after);  // an environment's name in a shell's prompt
    if (!prompt && !commented && !R.patterns.TOLD_OTHER_BEFORE.test(before) && !R.patterns.TOLD_OTHER_AFTER.test(after)) {
      return false;
    }
    meter.work += stop - start;
    return !R.patterns.TOLD_NOT.test(text.slice(start, stop));
  }

  /* Whether the sentence a statement ending at `at` is in ends with a question mark (_paste.py:_asked). */
  function isAsked(ends, at) {
    let low = 0, high = ends.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (ends[middle][0] < at) low = middle + 1; else high = middle;
    }
    return low < ends.length && ends[low][1];
  }

  /* The line after the one that ends at `end` (_paste.py:_next_line). */
  function nextLine(text, end, meter) {
    if (end >= text.length) return "";
    let stop = text.indexOf("\n", end + 1);
    if (stop < 0) stop = text.length;
    meter.work += stop - end;
    return text.slice(end + 1, stop);
  }

  /* Whether a line stating a release says it works or fixed it, itself or as its next line starts (_paste.py). */
  function toldWorking(line, after, R, own = new Set()) {
    const numbers = new Set(own);  // a line naming two releases of the library is held to both (_paste.py)
    for (const one of line.matchAll(R.patterns.BESIDE_NUMBER)) numbers.add(one.index + one[0].length - one[1].length);
    if (numbers.size >= 2) return false;
    if (R.patterns.TOLD_WORKING.test(line)) return !R.patterns.TOLD_NOT.test(line);
    return R.patterns.TOLD_NEXT.test(after) && !R.patterns.TOLD_NOT.test(after)
      && firstMatch(R.patterns.RELEASE_NUMBER, after) === null;
  }

  /* Every release number on a line that states one of `library` (_paste.py:releases_beside). */
  function releasesBeside(text, library, R, meter, others = []) {
    if (!library) return [];
    const found = [], majors = new Set();
    const gone = replaced(text, R, meter);
    const numberAt = (one, offset) => offset + one.index + one[0].length - one[1].length;
    let done = -1;
    for (const m of statements(text, library, R, meter, others)) {
      const at = m.index + m[0].length - m[1].length;
      if (inSpans(gone, at)) continue;
      majors.add(m[1].split(".")[0]);
      const start = lineStart(text, at);
      if (start <= done) continue;
      let end = text.indexOf("\n", at);
      if (end < 0) end = text.length;
      meter.work += end - start;
      for (const one of text.slice(start, end).matchAll(R.patterns.BESIDE_NUMBER)) {
        if (!inSpans(gone, numberAt(one, start))) found.push(one[1]);
      }
      done = start;
    }
    if (majors.size) {
      const since = ranFrom(text, library, R, meter);
      meter.work += text.length - since;
      const numbers = new RegExp(R.patterns.BESIDE_NUMBER);  // a copy: its own lastIndex
      numbers.lastIndex = since;
      for (const one of text.matchAll(numbers)) {
        if (majors.has(one[1].split(".")[0]) && !inSpans(gone, numberAt(one, 0))) found.push(one[1]);
      }
    }
    return found;
  }

  /* Where a transcript names what it replaced or uninstalled, in order (_paste.py:replaced). */
  function replaced(text, R, meter) {
    meter.work += text.length;
    return [...text.matchAll(R.patterns.REPLACED)].map((one) => [one.index, one.index + one[0].length]);
  }

  /* Whether `at` lies in one of `spans` (ordered, disjoint) (_paste.py:inside). */
  function inSpans(spans, at) {
    let low = 0, high = spans.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (spans[middle][0] <= at) low = middle + 1; else high = middle;
    }
    return low > 0 && spans[low - 1][0] <= at && at < spans[low - 1][1];
  }

  /* -- the index's items (errorkb/lookup/_known.py) ------------------------------------------ */

  const text_ = (value) => (value === null || value === undefined ? null : String(value));
  const list = (value) => (Array.isArray(value) ? value : []);
  const dict = (value) => (value && typeof value === "object" && !Array.isArray(value) ? value : {});

  /* A relation's side (_known.py:_side): an integer constant (a JSON number), else a placeholder's text. */
  const side = (value) => (Number.isInteger(value) ? value : String(value));

  function frameRules(value) {
    return list(value).filter((one) => dict(one) === one && one.file)
      .map((one) => ({ file: String(one.file), function: text_(one.function) || null }));
  }

  function diagnosis(value) {
    const d = dict(value);
    const placeholders = table();
    for (const [name, rule] of Object.entries(dict(d.placeholders))) {
      if (dict(rule) === rule) {
        placeholders[name] = { type: String(rule.type || "any"), allow: list(rule.allow).map(String),
          withhold: list(rule.withhold).filter((one) => dict(one) === one && list(one.names).length)
            .map((one) => ({ names: list(one.names).map(String), unless: list(one.unless).map(String),
              because: String(one.because || ""), library: one.library === true })),
          ties: list(rule.ties).filter((one) => dict(one) === one && list(one.names).length)
            .map((one) => ({ names: list(one.names).map(String), unless: list(one.unless).map(String),
              because: String(one.because || ""), foreign: one.foreign === true })) };
      }
    }
    return {
      frames: frameRules(d.frames), requireFrame: d.require_frame === true, exclude: frameRules(d.exclude),
      innermostExclude: frameRules(d.innermost_exclude), code: list(d.code).filter((n) => n).map(String),
      placeholders, relations: list(d.relations).filter((one) => Array.isArray(one) && one.length === 3)
        .map(([left, operator, right]) => [side(left), String(operator), side(right)]),
      direction: text_(d.direction),
      otherCauses: list(d.other_causes).filter((one) => dict(one) === one && one.releases)
        .map((one) => ({ releases: String(one.releases), note: String(one.note || ""), message: text_(one.message),
          messages: list(one.messages).filter((t) => t).map(String), sameFrames: one.same_frames === true })),
      within: text_(d.within), runtime: d.runtime === true,
    };
  }

  function known(item) {
    const exception = String(item.exception);
    const wording = (w) => ({ message: text_(w.message) || "", exception: text_(w.exception) || exception,
      releases: text_(w.releases), device: text_(w.device), note: text_(w.note),
      words: typeof w.words === "boolean" ? w.words : true, own: w.own === true, main: w.main !== false,
      called: w.called === true });
    let wordings = list(item.wordings).filter((w) => dict(w) === w).map(wording);
    if (!wordings.length) wordings = [wording({ message: item.message, exception })];
    const lines = dict(item.lines);
    return {
      entry: item, id: String(item.id), title: String(item.title), exception, message: String(item.message), wordings,
      releases: { raises: text_(item.raises_in), lastGood: text_(item.last_good),
        replacement: text_(item.replacement), replacementSince: text_(item.replacement_since) },
      linesPath: text_(lines.path),
      lines: Object.entries(dict(lines.by_release)).filter(([, line]) => Number.isInteger(line))
        .map(([release, line]) => [String(release), line]),
      recognisedBy: list(item.recognised_by).filter((t) => t).map(String),
      kind: String(item.kind || "raise"), diagnosis: diagnosis(item.diagnosis), origin: origin(item),
    };
  }

  /* Where the error comes from, as the pages say it (`Entry.origin`, shipped in the index): [words, name], or null
     (_known.py:_origin). An older index's raise is raised from its function; a removed or changed API's is left
     unsaid (its function is the replacement: no reader is sent there). The paste box and `errorkb lookup` show it. */
  function origin(item) {
    const shipped = item.origin;
    if (Array.isArray(shipped) && shipped.length === 2 && shipped.every((part) => typeof part === "string" && part)) {
      return [shipped[0], shipped[1]];
    }
    const name = String(item.function || "");
    return name && String(item.kind || "raise") === "raise" ? ["from", name] : null;
  }

  /* -- releases (errorkb/lookup/_release.py) ------------------------------------------------- */

  function wordingRange(one, wording) {
    if (wording.releases) return wording.releases;
    return wording.main ? one.releases.raises : null;
  }

  /* _paste.py:installed_at: the package folder at `start` of a frame's path stands where packages are installed. */
  function installedAt(path, start, R) {
    return start === 0 || (path[start - 1] === "/" && R.patterns.INSTALL_ROOT.test(path.slice(0, start - 1)));
  }

  /* _paste.py:own_file: an absolute path none of whose folders is one Python installs packages in. */
  function ownFile(path, packages, R) {
    const folders = path.split("/").slice(0, -1);
    return R.patterns.OWN_FILE.test(path) && !folders.some((one) => R.patterns.INSTALL_ROOT.test(one))
      && !folders.some((one) => packages.includes(one));
  }

  function releasesInPaste(one, found, R) {
    if (!one.linesPath || !one.lines.length) return [];
    const installed = one.linesPath;  // the innermost frame in the file: where it was raised
    const inFile = found.filter((f) => f.path.endsWith("/" + installed)
      && installedAt(f.path, f.path.length - installed.length, R));
    if (!inFile.length) return [];
    const raised = inFile[inFile.length - 1].line;
    return one.lines.filter(([, line]) => line === raised).map(([release]) => release);
  }

  /* A given release that the raising frame contradicts (_release.py:contradicted). */
  function contradicted(one, wording, releases, found, R) {
    if (!wording.main || !one.linesPath || !one.lines.length || !releases.length || !found.length) return null;
    const installed = one.linesPath, last = found[found.length - 1];
    const inside = (f) => f.path.endsWith("/" + installed) && installedAt(f.path, f.path.length - installed.length, R);
    if (!inside(last)) return null;
    const inFile = new Set(found.filter(inside).map((f) => f.line));
    let earliest = null;
    for (const release of releases) {
      const number = plain(release, R);
      const series = number === null ? null : number.split(".").slice(0, 2).join(".");
      const lines = new Set(one.lines.filter(([r]) => r.split(".").slice(0, 2).join(".") === series).map(([, l]) => l));
      if (lines.size !== 1 || [...lines].some((l) => inFile.has(l))) return null;
      earliest = earliest || [release, last.line, [...lines][0]];
    }
    return earliest;
  }

  const describe = (releases) => (releases.length === 1 ? releases[0] : `${releases[0]} – ${releases[releases.length - 1]}`);

  function verdict(one, wording, releases, source, library, R) {
    const facts = one.releases, claim = wordingRange(one, wording);
    const given = source !== "frames";
    const where = describe(releases);
    const inside = claim !== null ? releases.map((r) => contains(claim, r, R)) : [null];
    if (inside.includes(null)) return { releases, given, raises: null, advice: "", source, range: claim };
    if (!inside.some(Boolean)) {
      return { releases, given, raises: false, advice: `${library} ${where} does not raise it as documented (this ` +
        `wording comes from ${claim}): the error comes from other code or another release.`, source, range: claim };
    }
    if (!inside.every(Boolean)) {
      return { releases, given, raises: null, advice: `Of ${library} ${where}, only some raise it (${claim}).`, source,
        range: claim };
    }
    return { releases, given, raises: true, advice: advice(facts, releases, one.diagnosis.direction, R), source,
      range: claim };
  }

  function advice(facts, releases, direction, R) {
    const back = facts.lastGood && direction !== "newer-code"
      ? ` or downgrade to ${facts.lastGood}, the last release where the old code ran` : "";
    if (facts.replacement && facts.replacementSince) {
      if (releases.every((r) => contains(`>=${facts.replacementSince}`, r, R))) {
        return `Use ${facts.replacement} (available since ${facts.replacementSince}).`;
      }
      return `Upgrade to ${facts.replacementSince} or later and use ${facts.replacement}${back ? "," : ""}${back}.`;
    }
    if (facts.replacement) return `Use ${facts.replacement}.`;
    if (back) return `Apply the fix on this page,${back}.`;
    return "Apply the fix on this page.";
  }

  /* Does the PEP 440 `specifier` contain the final release `release`? Release numbers only:
   * ==, !=, <, <=, >, >=, ~=, `==X.*` / `!=X.*`, comma = and, `||` = or; null when not understood.
   * tests/site/test_lookup_js.py checks it against `packaging`, which _release.py uses. */
  function contains(specifier, release, R) {
    if (specifier.includes("||")) {
      const parts = specifier.split("||").map((part) => contains(part, release, R));
      return parts.includes(true) ? true : parts.includes(null) ? null : false;
    }
    if (!R.patterns.PLAIN_RELEASE.test(release)) return null;
    const version = release.split(".").map(Number);
    let result = true;
    for (const raw of specifier.split(",")) {
      const clause = strip(raw, R.whitespace);
      if (!clause) continue;
      const m = R.patterns.CLAUSE.exec(clause);
      if (!m) return null;
      const [, op, target, wildcard] = m;
      const wanted = target.split(".").map(Number);
      if (wildcard && op !== "==" && op !== "!=") return null;
      if (op === "~=" && wanted.length < 2) return null;
      if (!holds(op, version, wanted, Boolean(wildcard))) result = false;
    }
    return result;
  }

  function order(a, b) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i] || 0, y = b[i] || 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  }

  function holds(op, version, wanted, wildcard) {
    const prefix = (length) => order(version.slice(0, length).concat(Array(Math.max(length - version.length, 0)).fill(0)),
      wanted.slice(0, length)) === 0;
    switch (op) {
      case "==": return wildcard ? prefix(wanted.length) : order(version, wanted) === 0;
      case "!=": return wildcard ? !prefix(wanted.length) : order(version, wanted) !== 0;
      case "<": return order(version, wanted) < 0;
      case "<=": return order(version, wanted) <= 0;
      case ">": return order(version, wanted) > 0;
      case ">=": return order(version, wanted) >= 0;
      case "~=": return order(version, wanted) >= 0 && prefix(wanted.length - 1);
      default: return false;
    }
  }

  function plain(release, R) {
    if (release === null || release === undefined) return null;
    const found = /^v?([0-9]+(?:\.[0-9]+)*)/.exec(strip(String(release), R.whitespace));
    return found ? found[1] : null;
  }

  /* -- matching, grading, ranking (errorkb/lookup/_match.py) --------------------------------- */

  /* A class name's 32-bit FNV-1a hash (its UTF-8 bytes), as 8 hex digits (_match.py:fnv1a). */
  /* `text` as one Markdown code span whatever it holds (errorkb.lookup._match.code_span): a fence one backtick
   * longer than its longest run, padded where it starts or ends with a backtick. */
  function codeSpan(text) {
    const longest = Math.max(0, ...(text.match(/`+/g) || []).map((run) => run.length));
    const fence = "`".repeat(longest + 1);
    const pad = text.startsWith("`") || text.endsWith("`") || (text.startsWith(" ") && text.endsWith(" ") && text.trim())
      ? " " : "";
    return `${fence}${pad}${text}${pad}${fence}`;
  }

  function fnv1a(name) {
    let value = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(name)) value = Math.imul(value ^ byte, 0x01000193) >>> 0;
    return value.toString(16).padStart(8, "0");
  }

  const lastName = (name) => name.slice(name.lastIndexOf(".") + 1);
  const sameException = (seen, documented) => lastName(seen) === lastName(documented);

  const score = (m) => [m.grade === "confirmed" ? 1 : 0, m.exact ? 1 : 0, m.exception !== null ? 1 : 0, -m.chain,
    m.release !== null && m.release.raises ? 1 : 0, m.recognised ? 1 : 0, m.fixed, -m.wording];
  function better(a, b) {  // a.score > b.score
    const sa = score(a), sb = score(b);
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sa[i] > sb[i];
    return false;
  }
  function compare(a, b) {
    const sa = score(a), sb = score(b);
    for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sb[i] - sa[i];
    return a.known.id < b.known.id ? -1 : a.known.id > b.known.id ? 1 : 0;
  }

  /* _match.py:_path_matches; `R` given: only at a place of an installed package (installedAt). */
  function pathMatches(path, pattern, R = null) {
    if (pattern.endsWith("/")) {
      if (path.startsWith(pattern)) return true;
      for (let at = path.indexOf("/" + pattern); at >= 0; at = path.indexOf("/" + pattern, at + 1)) {
        if (R === null || installedAt(path, at + 1, R)) return true;
      }
      return false;
    }
    if (!pattern.includes("*")) {
      if (path === pattern) return true;
      return path.endsWith("/" + pattern) && (R === null || installedAt(path, path.length - pattern.length, R));
    }
    const found = new RegExp("(?:^|/)" + pattern.split("*").map(escapeRe).join("[^/]*") + "$").exec(path);
    if (found === null) return false;
    return R === null || installedAt(path, found.index + (path[found.index] === "/" ? 1 : 0), R);
  }

  function frameMatches(frame, rule, R = null) {
    if (rule.function !== null && lastName(frame.function) !== lastName(rule.function)) return false;
    return pathMatches(frame.path, rule.file, R);
  }

  /* _match.py:_first; `R` given: the installed library's frames only. */
  function first(found, wanted, R = null) {
    for (let i = found.length - 1; i >= 0; i--) if (wanted.some((rule) => frameMatches(found[i], rule, R))) return found[i];
    return null;
  }

  function where(thing) {
    if ("file" in thing) return thing.function ? `\`${thing.function}\` (${thing.file})` : `\`${thing.file}\``;
    return thing.function ? `\`${thing.function}\` (${thing.path})` : thing.path;
  }

  /* _match.py:without_comment: a line of Python without its comment (from a `#` outside a string). */
  function withoutComment(code) {
    let quote = "";
    for (let at = 0; at < code.length; at++) {
      const char = code[at];
      if (quote) {
        if (char === "\\") at++;
        else if (char === quote) quote = "";
      } else if (char === "'" || char === '"') {
        quote = char;
      } else if (char === "#") {
        return code.slice(0, at);
      }
    }
    return code;
  }

  /* _match.py:code_used: a line of Python as it uses names: its comment dropped, a string's text blanked unless
     the whole of it is a name or a dotted name (NAMED_STRING), an f-string's replacement fields kept as code. */
  function codeUsed(code, R) {
    const kept = [];
    let at = 0;
    while (at < code.length) {
      const char = code[at];
      if (char === "#") break;
      if (char !== "'" && char !== '"') {
        kept.push(char);
        at++;
        continue;
      }
      let end = at + 1;
      while (end < code.length && code[end] !== char) end += code[end] === "\\" ? 2 : 1;
      const text = code.slice(at + 1, end);
      const prefix = R.patterns.STRING_PREFIX.exec(code.slice(Math.max(0, at - 3), at));  // two letters and before them
      if (R.patterns.NAMED_STRING.test(text)) kept.push(" " + text + " ");
      else if (prefix !== null && prefix[0].toLowerCase().includes("f")) {
        kept.push(" " + fields(text).map((field) => codeUsed(field, R)).join(" ") + " ");
      } else kept.push(" ");
      at = end + 1;
    }
    return kept.join("");
  }

  /* _match.py:_fields: an f-string's replacement fields, nested braces counted; `{{` is a brace. */
  function fields(text) {
    const found = [];
    let at = 0;
    while (at < text.length) {
      if (text.startsWith("{{", at)) {
        at += 2;
        continue;
      }
      if (text[at] !== "{") {
        at++;
        continue;
      }
      let depth = 1;
      let end = at + 1;
      while (end < text.length && depth) {
        if (text[end] === "{") depth++;
        else if (text[end] === "}") depth--;
        end++;
      }
      found.push(text.slice(at + 1, depth === 0 ? end - 1 : end));
      at = end;
    }
    return found;
  }

  const uses = (code, names, R) => names.some((name) =>
    new RegExp("(?<![A-Za-z0-9_])" + escapeRe(name) + "(?![A-Za-z0-9_])").test(codeUsed(code, R)));

  // The values (whole names) the entry's `withhold` declarations name, each with why (_match.py:withheld_values).
  // The `location` values that are not the installed library's folder, each with why (_match.py:located_elsewhere).
  function locatedElsewhere(d, named, library, R) {
    return named.filter(([expression, value]) => typeOf(d, expression, R) === "location"
      && !installedLocation(value, library, R)).map(([, value]) => [value, `is not where ${library} is installed ` +
      `(a folder named like it, or a namespace package without its files): the import found another \`${library}\`; ` +
      "fix what it imports first"]);
  }

  function installedLocation(value, library, R) {
    if (value !== "unknown location" && ((!value.includes("/") && !value.includes("\\"))
      || [...value].some((char) => R.whitespace.includes(char)))) return true;
    const path = value.replaceAll("\\", "/");
    for (let at = path.indexOf(library + "/"); at >= 0; at = path.indexOf(library + "/", at + 1)) {
      if ((at === 0 || path[at - 1] === "/") && installedAt(path, at, R)) return true;
    }
    return false;
  }

  function withheldValues(d, named, defines) {
    const found = [];
    for (const [expression, value] of Object.entries(named)) {
      const declared = d.placeholders[expression];
      for (const rule of declared ? declared.withhold : []) {
        if (rule.library && defines !== null && !defines(value)) continue;
        if (rule.names.some((glob) => nameMatches(value, glob)) && !rule.unless.some((glob) => nameMatches(value, glob))) {
          found.push([value, rule.because]);
          break;
        }
      }
    }
    return found;
  }

  // The values (whole names) the entry's `ties` declarations name, each with why (_match.py:tied_values).
  function tiedValues(d, named, defines) {
    const found = [];
    for (const [expression, value] of Object.entries(named)) {
      const declared = d.placeholders[expression];
      for (const rule of declared ? declared.ties : []) {
        if (rule.foreign && (defines === null || defines(value))) continue;
        if (rule.names.some((glob) => nameMatches(value, glob)) && !rule.unless.some((glob) => nameMatches(value, glob))) {
          found.push([value, rule.because]);
          break;
        }
      }
    }
    return found;
  }

  // A name against a glob whose `*` stands for any run of characters, linearly (_match.py:name_matches).
  function nameMatches(value, glob) {
    const pieces = glob.split("*");
    if (pieces.length === 1) return value === glob;
    const first = pieces[0], last = pieces[pieces.length - 1];
    if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
    let at = first.length;
    const end = value.length - last.length;
    for (const piece of pieces.slice(1, -1)) {
      const found = value.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  }

  /* A placeholder's type: declared, else by its name, else `count` for a call of `len` (_match.py:_type). */
  function typeOf(d, expression, R) {
    const declared = d.placeholders[expression];
    if (declared) return declared.type;
    return R.defaultTypes[expression] || (R.patterns.COUNT.test(expression) ? "count" : "any");
  }

  const CLASS_TYPES = ["class", "user", "library-class"];
  const NAME_TYPES = [...CLASS_TYPES, "name"];

  /* Whether a wording names a value its entry holds to a type, which a text cut short may show against it; not a
   * count, held only where the whole message shows it (_match.py:_typed). */
  function typedSlots(d, slots, R) {
    return slots.some((slot) => !["any", "count"].includes(typeOf(d, slot, R)));
  }

  function fits(d, values, library, R, partial = false, names = table()) {
    for (const [expression, value] of Object.entries(values)) {
      const kind = typeOf(d, expression, R);
      if (partial && (!value || kind === "count")) continue;  // a cut text's count may run on (typedSlots)
      if (R.patterns.SOURCE_VALUE.test(value)) continue;  // a placeholder as the raise's source line writes it: no value
      const pattern = R.types[kind];
      if (pattern && !pattern.test(value)) return false;
      if (kind === "library" && library && value !== library && !value.startsWith(library + ".")
          && !(partial && library.startsWith(value))) return false;
      if (CLASS_TYPES.includes(kind)) {
        const declared = d.placeholders[expression];
        const allowed = declared ? declared.allow : [];
        const whole = expression in names ? names[expression] : value;
        if (R.builtinTypes.has(whole) && !allowed.includes(whole)) return false;
      }
    }
    for (const [left, operator, right] of partial ? [] : d.relations) {
      // a side is a placeholder (its value) or an integer constant (its digits) (_match.py:fits)
      const [a, b] = [left, right].map((side) => (typeof side === "number" ? String(side) : values[side]));
      if (!a || !b) continue;  // a wording that does not print both: not its concern (_match.py:fits)
      if (!R.types.int.test(a) || !R.types.int.test(b)) return false;
      const x = Number(a), y = Number(b);
      const ok = { "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x === y, "!=": x !== y }[operator];
      if (!ok) return false;
    }
    return true;
  }

  /* Whether the text holds the piece (_match.py:_has_piece): counted each time, scanned once per reading. */
  /* Whether every place the paste shows a recognised text lies in another exception line's traceback or in the
   * source line a warning echoes (_match.py:_recognised_elsewhere). */
  function recognisedElsewhere(match, reading, meter, R) {
    meter.work += reading.text.length;
    const regions = warningSources(reading.text, R, meter);
    if (match.at >= 0) {
      const ats = reading.frames.map((f) => f.at);
      const own = reading.startOf(match.at);
      const lines = [...new Set(reading.options.filter((o) => o.at >= 0).map((o) => o.at))].sort((a, b) => a - b);
      for (const at of lines) {
        const start = reading.startOf(at);
        const first = bisectLeft(ats, start);
        if (start !== own && first < ats.length && ats[first] < at) regions.push([ats[first], at]);
      }
    }
    if (!regions.length) return false;
    for (const piece of match.known.recognisedBy) {
      meter.work += reading.text.length;
      let found = reading.text.indexOf(piece);
      while (found >= 0) {
        if (!regions.some(([begin, end]) => begin <= found && found < end)) return false;
        found = reading.text.indexOf(piece, found + 1);
      }
    }
    return true;
  }

  /* Where the paste shows the source lines its warnings echo: the first indented line after a header and the
   * lines its message runs on (_match.py:_warning_sources). */
  function warningSources(text, R, meter) {
    const regions = [];
    for (const header of text.matchAll(R.patterns.WARNING_HEADER)) {
      let begin = text.indexOf("\n", header.index + header[0].length) + 1;
      while (begin) {
        let end = text.indexOf("\n", begin);
        end = end < 0 ? text.length : end;
        const line = text.slice(begin, end);
        meter.work += line.length + 1;
        if (line.startsWith(" ") || line.startsWith("\t")) {
          if (strip(line, R.whitespace) && firstMatch(R.patterns.FRAME_LINE, line) === null) regions.push([begin, end]);
          break;
        }
        if (endsMessage(line, R)) break;
        begin = end < text.length ? end + 1 : 0;
      }
    }
    return regions;
  }

  /* Whether an unindented line after a warning's header starts something other than its message
   * (_match.py:_ends_message). */
  function endsMessage(line, R) {
    return [R.patterns.WARNING_HEADER, R.patterns.EXCEPTION_LINE, R.patterns.STOP_LINE, R.patterns.FRAME_LINE,
      R.patterns.ARROW_LINE].some((pattern) => firstMatch(pattern, line) !== null);
  }

  /* Whether two exception lines (`Name: message`) say the same message, whatever their classes
   * (_match.py:_same_words). */
  function sameWords(earlier, later, R) {
    const first = earlier.indexOf(": "), second = later.indexOf(": ");
    if (first < 0 || second < 0) return false;
    const words = strip(earlier.slice(first + 2), R.whitespace);
    return words !== "" && words === strip(later.slice(second + 2), R.whitespace);
  }

  function bisectLeft(sorted, value) {
    let low = 0, high = sorted.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (sorted[mid] < value) low = mid + 1; else high = mid;
    }
    return low;
  }

  function hasPiece(reading, piece, meter) {
    const at = reading.at(piece);
    meter.work += at < 0 ? reading.text.length : at + piece.length;
    return at >= 0;
  }

  /* A leading placeholder found inside a text: the text's last word, and for one typed as a name, the name
   * that word ends with (_match.py:_trim_leading). */
  function trimLeading(item, values, R) {
    const template = item.template;
    if (template.pieces[0] || !template.slots.length) return values;
    const slot = template.slots[0];
    const words = values[slot].split(new RegExp("[" + escapeRe(R.whitespace) + "]+")).filter((w) => w);
    let value = words.length ? words[words.length - 1] : "";
    if (NAME_TYPES.includes(typeOf(item.known.diagnosis, slot, R))) {
      let start = value.length;
      while (start > 0 && R.dottedNameChars.includes(value[start - 1])) start--;
      value = value.slice(start);
    }
    return put(values, slot, value);
  }

  /* Each placeholder's name characters written right before and after it (_match.py:_context). */
  function context(template, R) {
    const found = table();
    template.slots.forEach((slot, index) => {
      const before = template.pieces[index], after = template.pieces[index + 1];
      let start = before.length, end = 0;
      while (start > 0 && R.nameChars.includes(before[start - 1])) start--;
      while (end < after.length && R.nameChars.includes(after[end])) end++;
      if (!(slot in found)) found[slot] = [before.slice(start), after.slice(0, end)];
    });
    return found;
  }

  function wholeNames(item, values) {
    const names = table();
    for (const [slot, [left, right]] of Object.entries(item.context)) {
      if ((left || right) && slot in values) names[slot] = left + values[slot] + right;
    }
    return names;
  }

  /* A wording that starts with a name's characters starts a word where it is found (_match.py:_at_word). */
  function atWord(item, text, at, R) {
    const first = item.template.pieces[0];
    return !first || !R.nameChars.includes(first[0]) || at <= 0 || !R.nameChars.includes(text[at - 1]);
  }

  function makeMatch(item, values, exception, exact, chain, recognised, at, names = table()) {
    return { entry: item.known.entry, known: item.known, values, exception, exact, fixed: item.fixed, wording: item.wording,
      matched: item.known.wordings[item.wording], chain, release: null, recognised, grade: "confirmed", evidence: [],
      missing: [], at, shown: false, names, withheld: [], held: [], tail: "", head: "" };
  }

  /* A wording's ends from one of its first piece's clauses on (a word after `tailAfter`'s punctuation and a
   * blank), keeping at least `tailMin` fixed characters,
   * longest first, each with the beginning it leaves out; and the piece every one of them holds
   * (_match.py:_tails). */
  function tailsOf(one, index, template, generic, R) {
    const first = template.pieces[0];
    if (!first || first.includes("{") || first.includes("}") || !template.source.startsWith(first)) return null;
    const rest = template.source.slice(first.length);
    const later = template.pieces.slice(1).filter((piece) => piece);
    let gate = [...first].slice(-R.tailMin).join("");
    if (later.length) {
      gate = later[0];
      for (const piece of later) if (points(piece) > points(gate)) gate = piece;
    }
    const ends = [];
    for (let at = 1; at < first.length; at++) {
      if (!R.whitespace.includes(first[at - 1]) || R.whitespace.includes(first[at])) continue;
      const before = rstrip(first.slice(0, at), R.whitespace);
      if (!before || !R.tailAfter.includes(before[before.length - 1])) continue;
      const end = new MessageTemplate(first.slice(at) + rest);
      const fixed = end.pieces.reduce((n, piece) => n + points(piece), 0);
      if (fixed < R.tailMin) break;
      if (isDegenerate(end, generic)) continue;
      const pieces = [...new Set(end.pieces.filter((p) => p))].sort((a, b) => b.length - a.length);
      const typed = typedSlots(one.diagnosis, end.slots, R);
      ends.push([{ known: one, wording: index, template: end, pieces, fixed, typed, context: context(end, R) },
        first.slice(0, at)]);
    }
    return ends.length ? [gate, ends] : null;
  }

  /* A wording's beginnings that end where a clause does (just before `tailAfter`'s punctuation and a blank)
   * with fixed text, keeping at least `headMin` letters and digits of it, or at a word's end just before a blank,
   * keeping at least `headWordMin` and leaving out `headWordRest` names; longest first, each with the rest it
   * leaves out; and the shortest one's first piece, which every one of them holds (_match.py:_heads). */
  function headsOf(one, index, template, generic, R) {
    const source = template.source, first = template.pieces[0];
    if ([...first].filter((char) => ALNUM.test(char)).length < MIN_PIECE) return null;
    const heads = [];
    for (let at = source.length - 2; at > 0; at--) {
      const clause = R.tailAfter.includes(source[at]) && R.whitespace.includes(source[at + 1]);
      const word = R.whitespace.includes(source[at]) && (ALNUM.test(source[at - 1]) || source[at - 1] === "_");
      if (!clause && !word) continue;
      let head;
      try {
        head = new MessageTemplate(source.slice(0, at));
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
        continue;  // the punctuation or the blank is inside a placeholder
      }
      if (!head.pieces[head.pieces.length - 1] || R.whitespace.includes(source[at - 1])) continue;
      const kept = fixedText(head).total;
      if (kept < R.headMin) break;
      if (!clause && (kept < R.headWordMin || namesLeftOut(source.slice(at), R) < R.headWordRest)) continue;
      if (isDegenerate(head, generic)) continue;
      const pieces = [...new Set(head.pieces.filter((p) => p))].sort((a, b) => b.length - a.length);
      const fixed = head.pieces.reduce((n, piece) => n + points(piece), 0);
      const typed = typedSlots(one.diagnosis, head.slots, R);
      heads.push([{ known: one, wording: index, template: head, pieces, fixed, typed, context: context(head, R) },
        source.slice(at)]);
    }
    return heads.length ? [heads[heads.length - 1][0].template.pieces[0], heads] : null;
  }

  /* The names (`NAME`, holding a letter) of fixed text in a wording's `rest` that a beginning leaves out
   * (_match.py:_names_left_out). */
  function namesLeftOut(rest, R) {
    let fixed;
    try {
      fixed = new MessageTemplate(rest).pieces.join("");
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      return 0;
    }
    return [...fixed.matchAll(R.patterns.NAME)].filter((found) => /\p{L}/u.test(found[0])).length;
  }

  /* A wording's beginning found in the paste, starting a word, and closed right after by one of `headClose`'s
   * quotes or its line's end (_match.py:_closed_beginning). */
  function closedBeginning(item, reading, library, R, meter) {
    const text = reading.text, template = item.template;
    const first = template.pieces[0];
    if (!atWord(item, text, reading.at(first), R)) return null;
    let values = template.search(text, meter);
    if (values === null) return null;
    values = trimLeading(item, values, R);
    let shown = "";
    template.pieces.forEach((piece, k) => {
      shown += piece + (k < template.slots.length ? (values[template.slots[k]] ?? "") : "");
    });
    const at = text.indexOf(shown);
    meter.work += at < 0 ? text.length : at + shown.length;
    const end = at + shown.length;
    if (at < 0 || !atWord(item, text, at, R) || (end < text.length && !(R.headClose + "\n").includes(text[end]))) {
      return null;
    }
    const recognised = item.known.recognisedBy.some((piece) => hasPiece(reading, piece, meter));
    const names = wholeNames(item, values);
    const found = makeMatch(item, values, null, false, R.chain, recognised, -1, names);
    return fits(item.known.diagnosis, values, library, R, true, names) ? found : null;
  }

  /* A wording's end that a candidate of the paste is, whole (_match.py:_whole_end). */
  function wholeEnd(item, reading, library, R, meter) {
    const recognised = item.known.recognisedBy.some((piece) => hasPiece(reading, piece, meter));
    return exact(item, reading, library, recognised, R, meter, false)[0];
  }

  /* A text holding only the beginning of a typed wording may still name what it never names (_match.py:_cut_short). */
  function cutShort(item, reading, library, recognised, R, meter) {
    const first = item.template.pieces[0];
    if (item.onClass || !item.typed || !first || !hasPiece(reading, first, meter)) return null;
    const values = item.template.prefix(reading.text, meter, reading.at(first));
    const names = values ? wholeNames(item, values) : table();
    if (!values || !Object.keys(values).length || fits(item.known.diagnosis, values, library, R, true, names)) return null;
    return makeMatch(item, values, null, false, R.chain, recognised, -1, names);
  }

  /* `hasPiece` on the text with each line break made one space (_match.py:_has_spaced). */
  function hasSpaced(reading, piece, meter) {
    const at = reading.atSpaced(piece);
    meter.work += at < 0 ? reading.spaced().length : at + piece.length;
    return at >= 0;
  }

  /* `hasPiece` on the text with its line breaks taken out (_match.py:_has_joined). */
  function hasJoined(reading, piece, meter) {
    const at = reading.atJoined(piece);
    meter.work += at < 0 ? reading.joined().length : at + piece.length;
    return at >= 0;
  }

  /* The wording found anywhere in `text` (the paste, or the paste unwrapped), starting a word. */
  function foundInside(item, reading, text, at, library, recognised, R, meter) {
    const first = item.template.pieces[0];
    let values = atWord(item, text, first ? at(first) : 0, R) ? item.template.search(text, meter) : null;
    if (values === null) return [null, cutShort(item, reading, library, recognised, R, meter)];
    values = trailingValue(item, text, trimLeading(item, values, R), R, meter);
    const names = wholeNames(item, values);
    const found = makeMatch(item, values, null, false, R.chain, recognised, -1, names);
    return fits(item.known.diagnosis, values, library, R, false, names) ? [found, null] : [null, found];
  }

  /* A trailing placeholder the entry holds to a type or a relation, found inside a text: the word after the
   * wording's last fixed piece, less its closing punctuation (_match.py:_trailing_value). */
  function trailingValue(item, text, values, R, meter) {
    const template = item.template, d = item.known.diagnosis, slots = template.slots;
    if (template.pieces[template.pieces.length - 1] || !slots.length || values[slots[slots.length - 1]]) return values;
    const slot = slots[slots.length - 1];
    const kind = typeOf(d, slot, R);
    // a count takes any integer (`got -2`), for `fits` to hold it: a negative one is no count
    let pattern = kind === "count" ? R.types.int : R.types[kind];
    if (!pattern && d.relations.some((one) => one[0] === slot || one[2] === slot)) pattern = R.types.int;
    if (!pattern) return values;
    let before = "";
    template.pieces.slice(0, -1).forEach((piece, k) => {
      before += piece + (k < slots.length - 1 ? (values[slots[k]] ?? "") : "");
    });
    const at = text.indexOf(before);
    meter.work += at < 0 ? text.length : at + before.length;
    if (at < 0) return values;
    const start = at + before.length;
    let stop = start;
    while (stop < text.length && !R.whitespace.includes(text[stop])) stop++;
    meter.work += stop - start;
    const word = rstrip(text.slice(start, stop), R.trailingPunctuation);
    return pattern.test(word) ? put(values, slot, word) : values;
  }

  function matchOne(item, reading, library, R, meter, spaced) {
    const d = item.known.diagnosis;
    const recognised = item.known.recognisedBy.some((piece) => hasPiece(reading, piece, meter));
    if (spaced) {  // only a wording no other view of the text holds (_match.py:_match_one)
      if (item.pieces.every((piece) => hasPiece(reading, piece, meter))
          || item.pieces.every((piece) => hasJoined(reading, piece, meter))
          || !item.pieces.every((piece) => hasSpaced(reading, piece, meter))) return [null, null];
      return foundInside(item, reading, reading.spaced(), (piece) => reading.atSpaced(piece), library, recognised, R,
        meter);
    }
    if (!item.pieces.every((piece) => hasPiece(reading, piece, meter))) {
      if (reading.multiline() && item.pieces.every((piece) => hasJoined(reading, piece, meter))) {
        return foundInside(item, reading, reading.joined(), (piece) => reading.atJoined(piece), library, recognised, R,
          meter);
      }
      return [null, cutShort(item, reading, library, recognised, R, meter)];
    }
    const [best, mismatch] = exact(item, reading, library, recognised, R, meter, true);
    if (best === null && mismatch === null) {
      return foundInside(item, reading, reading.text, (piece) => reading.at(piece), library, recognised, R, meter);
    }
    return [best, best === null ? mismatch : null];
  }

  /* The wording's best fit among the candidate messages, each whole, and the first fit that breaks the
   * entry's types or relations (_match.py:_exact). */
  function exact(item, reading, library, recognised, R, meter, trim) {
    const wording = item.known.wordings[item.wording];
    let best = null, mismatch = null;
    for (const option of reading.options) {
      if (option.exception !== null && !sameException(option.exception, wording.exception)) continue;
      let values = item.template.match(option.message, meter);
      if (values === null) continue;
      if (trim && option.exception === null) values = trimLeading(item, values, R);  // the whole paste: a title's words first
      const names = wholeNames(item, values);
      const found = makeMatch(item, values, option.exception, true, option.chain, recognised, option.at, names);
      if (!fits(item.known.diagnosis, values, library, R, false, names)) mismatch = mismatch || found;
      else if (best === null || better(found, best)) best = found;
    }
    return [best, mismatch];
  }

  /* Where a traceback shows one confirmed entry's documented frame, another confirmed without its own is a
   * candidate (_match.py:_framed_first). */
  function framedFirst(matches) {
    const framed = (m) => m.evidence.some((e) => e.kind === "frame");
    if (!matches.some((m) => m.grade === "confirmed" && framed(m))) return matches;
    return matches.map((m) => (m.grade === "confirmed" && m.shown && m.known.diagnosis.frames.length && !framed(m)
      ? { ...m, grade: "candidate", missing: [...m.missing,
        `the traceback shows no frame in ${where(m.known.diagnosis.frames[0])}, where this error is raised`] }
      : m));
  }

  /* Words tie a message to one entry only: another entry's wording fitting the same exception line with as
   * much fixed text or more makes a confirmation on the words alone a candidate (_match.py:_shared_words). */
  function sharedWords(matches, R) {
    return matches.map((m) => {
      if (m.grade !== "confirmed" || !m.evidence.every((e) => e.kind === "words" || !R.confirming.has(e.kind))) {
        return m;
      }
      const rival = matches.find((o) => o.known.id !== m.known.id && o.at === m.at && o.fixed >= m.fixed
        && !o.withheld.length);
      return rival === undefined ? m : { ...m, grade: "candidate", missing: [...m.missing,
        `\`${rival.known.id}\` has the same words: the traceback, the failing line or the release tells them apart`] };
    });
  }

  /* `told`: an other cause's hint came first and already asks for the release and the traceback
   * (_match.py:_hints). */
  /* A hint's words at a front (`paste`, `cli`, `hook`) from the rules' table (_match.py:hint_words); null: not said
   * there. The page is the paste front. */
  function hintWords(R, code, params, front = "paste") {
    const template = (R.hintWords[code] || {})[front];
    if (template === null || template === undefined) return null;
    return template.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
  }

  function hints(match, d, shown, releases, library, told, blind, R) {
    const out = [];
    if (shown.length && d.frames.length) {
      out.push(`the traceback shows no frame in ${where(d.frames[0])}, where this error is raised`);
    } else if (blind) {
      // an other cause raises through the same frames: the traceback would confirm nothing
    } else if (!shown.length && d.frames.length) {
      out.push(hintWords(R, "traceback-frame", { where: where(d.frames[0]) }));
    } else if (!shown.length && d.code.length) {
      out.push(hintWords(R, "traceback-line", { code: codeSpan(d.code[0]) }));
    }
    if (match.known.recognisedBy.length && !match.recognised) {
      out.push(hintWords(R, "recognised-line", { line: codeSpan(match.known.recognisedBy[0]) }));
    }
    const claim = wordingRange(match.known, match.matched);
    if (!releases.length && claim && !told) out.push(hintWords(R, "release", { library, claim }));
    if (!out.length && !told) out.push(hintWords(R, "traceback-any", { id: match.known.id }));
    return out;
  }

  /* An other cause's wording, as written and as pasted, read as the wordings are (_match.py:_forms). */
  function forms(cause, R) {
    const found = [];
    for (const message of cause.messages) {
      try {
        found.push(new MessageTemplate(strip(plainQuotes(message), R.whitespace)));
      } catch (error) {
        if (!(error instanceof TemplateSyntaxError)) throw error;
      }
    }
    return found;
  }

  /* What tells an entry from another cause of its words (_match.py:_other_hint). */
  function otherHint(cause, releases, claim, library, R) {
    const note = cause.note.replace(/\.+$/, "");
    if (releases.length && releases.some((r) => contains(cause.releases, r, R) !== false)) {
      const tells = cause.sameFrames ? "Nothing in the traceback tells them apart: both raise through the same frames"
        : "The traceback tells them apart";
      return `${library} ${describe(releases)} is among the releases (${cause.releases}) where another cause prints ` +
        `the same words: ${note}. ${tells}`;
    }
    const ours = claim ? ` (this entry: ${claim})` : "";
    const tells = cause.sameFrames ? "tells them apart; the traceback does not (both raise through the same frames)"
      : "or the traceback tells them apart";
    return `another cause prints the same words on ${library} ${cause.releases}: ${note}. Your ${library} ` +
      `release${ours} ${tells}`;
  }

  /* A wording that starts with a lowercase letter (the index's `rules.lower_first`), that letter
   * capitalised as a title retypes it (`Cannot import name ...`): matched and graded as the wording
   * itself (errorkb/lookup/_match.py `_capitalised`). */
  function capitalised(source, R) {
    if (!source || !R.lowerFirst.includes(source[0])) return [];
    return [new MessageTemplate(source[0].toUpperCase() + source.slice(1))];
  }

  /* A wording of the instance's form (`'{cls}' object has no attribute 'name'`) in the class's, as Python words the
   * attribute missing from the class itself (`type object '{cls}' has no attribute 'name'`), and that capitalised;
   * none for another wording (the index's `rules.on_class`; errorkb/lookup/_match.py `_on_class`). */
  function onClass(source, R) {
    const { instance, prefix } = R.onClass;
    if (!instance || !source.startsWith(instance[0]) || source.split(instance).length !== 2) return [];
    const read = prefix + source.slice(instance[0].length).replace(instance, R.onClass.class);
    return [new MessageTemplate(read), ...capitalised(read, R)];
  }

  /* What the class's words lack: whether the class defined the attribute (_match.py:_on_class_hint). */
  function onClassHint(item, R) {
    const source = item.template.source;
    const name = source.slice(source.indexOf(R.onClass.class) + R.onClass.class.length).split("'")[0];
    const words = R.onClass.prefix.replace(/'+$/, "");
    return `${codeSpan(name)} was read from the class itself (${codeSpan(words + " ...")}): the change ` +
      "this entry documents if the class defined it (a method, a class attribute), but an attribute each " +
      "instance sets in `__init__` is missing from its class on every release: paste the traceback, or the " +
      "error of an instance, to confirm it";
  }


  /* Every entry's wordings parsed once; `answer` (or `find`) handles one paste. `options`: the
   * index's `library.name`, `rules`, `library.classes`, `library.others` and `runtime.packages`. */
  class Lookup {
    constructor(entries, cap, options = {}) {
      this.R = compileRules(options.rules);
      this.cap = cap || this.R.cap;
      this.library = options.library || "the library";
      // the words before the library's name in other distributions' names (the index's `library.others`; _index.py)
      this.otherNames = list(options.others).filter((one) => Array.isArray(one) && one.length
        && one.every((w) => typeof w === "string" && w)).map((one) => one.map(String));
      const generic = this.R.generic;
      const classes = String(options.classes || "");
      this.classes = new Set();
      for (let i = 0; i + 8 <= classes.length; i += 8) this.classes.add(classes.slice(i, i + 8));
      this.runtime = list(options.runtime).map(String);
      this.items = [];
      this.tails = [];  // [gate piece, its wording's ends]
      this.heads = [];  // [first piece, its wording's beginnings]
      this.retold = new Map();  // a removed API's name → its entries (retoldNames)
      this.ignored = [];
      this.known = [];
      this.wordingTemplates = new Map();  // "index entry-id" → the wording's template
      this.others = new Map();  // entry id → [[other cause, its wording's templates]]
      for (const item of entries) {
        const one = known(item);
        this.known.push(one);
        // An entry whose own wordings say `type object ...` declares the class's words: read as declared.
        const declares = one.wordings.some((w) => strip(plainQuotes(w.message), this.R.whitespace)
          .startsWith(this.R.onClass.prefix || "\u0000"));
        if (one.kind === "removed") {
          for (const name of one.diagnosis.code) {
            if (!this.R.patterns.RETOLD_NAME.test(name)) continue;
            if (!this.retold.has(name)) this.retold.set(name, []);
            this.retold.get(name).push(one);
          }
        }
        this.others.set(one.id, one.diagnosis.otherCauses.map((cause) => [cause, forms(cause, this.R)]));
        one.wordings.forEach((wording, index) => {
          const source = strip(plainQuotes(wording.message), this.R.whitespace);
          let template;
          try {
            template = new MessageTemplate(source);
          } catch (error) {
            if (!(error instanceof TemplateSyntaxError)) throw error;
            this.ignored.push([one.id, `wording ${index}: ${error.message}`]);
            return;
          }
          this.wordingTemplates.set(`${index} ${one.id}`, template);
          const reason = isDegenerate(template, generic);
          if (reason) { this.ignored.push([one.id, `wording ${index}: ${reason}`]); return; }
          const classForms = declares ? [] : onClass(source, this.R);
          for (const variant of [template, ...capitalised(source, this.R), ...classForms]) {
            const pieces = [...new Set(variant.pieces.filter((p) => p))].sort((a, b) => b.length - a.length);
            const fixed = variant.pieces.reduce((n, piece) => n + points(piece), 0);
            const typed = typedSlots(one.diagnosis, variant.slots, this.R);
            this.items.push({ known: one, wording: index, template: variant, pieces, fixed, typed,
              context: context(variant, this.R), onClass: classForms.includes(variant) });
          }
          const tails = tailsOf(one, index, template, generic, this.R);
          if (tails !== null) this.tails.push(tails);
          const heads = headsOf(one, index, template, generic, this.R);
          if (heads !== null) this.heads.push(heads);
        });
      }
    }
    find(pasted, release = null) { return this.answer(pasted, release).matches; }
    answer(pasted, release = null, source = "stated") {
      const R = this.R;
      const meter = new Meter();
      const kept = keepTail(pasted, this.cap);
      const logged = new Set();
      const text = normalize(kept, R, meter, logged);
      const size = points(kept), cut = points(pasted) - size;
      const empty = { matches: [], confirmed: [], candidates: [], ruledOut: [], cut, kept: size, work: meter.work,
        release: null, releaseSource: null };
      if (!text) return empty;
      const reading = this.read(text, release, source, meter, logged);
      const [best, out] = this.graded(reading, meter);
      if (out.size || [...best.values()].some((m) => m.grade !== "confirmed")) {
        this.relayed(reading, release, source, meter, logged, best, out);
      }
      const matches = sharedWords(framedFirst([...best.values()]), this.R).sort(compare);
      const ruledOut = [...out.values()].sort((a, b) => (a.match.known.id < b.match.known.id ? -1 : 1));
      const read = matches.length || ruledOut.length || (release !== null && release !== undefined);
      if (read) reading.all();
      return { matches, confirmed: matches.filter((m) => m.grade === "confirmed"),
        candidates: matches.filter((m) => m.grade !== "confirmed"), ruledOut, cut, kept: size, work: meter.work,
        release: read ? reading.release : null, releaseSource: read ? reading.source : null };
    }
    /* Stages 2 and 3 for one reading: each entry's best graded match, and those ruled out (_match.py:_graded). */
    graded(reading, meter) {
      const R = this.R;
      const best = new Map(), out = new Map(), mismatched = new Map(), held = new Map();
      for (const spaced of [false, true]) {  // then, when no wording matched, the line breaks made spaces
        if (spaced && (best.size || out.size || mismatched.size || !reading.multiline())) break;
        for (const item of this.items) {
          const [found, mismatch] = matchOne(item, reading, this.library, R, meter, spaced);
          if (mismatch !== null && !mismatched.has(item.known.id)) mismatched.set(item.known.id, mismatch);
          if (found === null) continue;
          let graded = this.grade(found, reading, meter);
          if (item.onClass && !graded.ruledOut) {
            graded = { ...graded, grade: "candidate", missing: [onClassHint(item, R), ...graded.missing] };
          }
          const id = item.known.id;
          if (!graded.ruledOut && graded.held.length && !held.has(id)) held.set(id, graded.held);
          if (graded.ruledOut) {
            if (!best.has(id) && (!out.has(id) || better(graded.match, out.get(id).match))) out.set(id, graded);
            continue;
          }
          if (!best.has(id) || better(graded, best.get(id))) {
            best.set(id, graded);
            out.delete(id);
          }
        }
      }
      for (const [id, mismatch] of mismatched) {
        best.delete(id);
        const values = Object.entries(mismatch.values).map(([k, v]) => `{${k}} = ${v}`).join(", ");
        out.set(id, { ruledOut: true, match: mismatch,
          reason: `the message fits its words, but not its values (${values}): another error worded alike` });
      }
      if (!best.size && !out.size) {  // nothing matched: a message that is only the end of a wording
        const [ends, endsOut] = this.ends(reading, meter);
        for (const [id, match] of ends) best.set(id, match);
        for (const [id, ruled] of endsOut) out.set(id, ruled);
      }
      if (!best.size && !out.size) {  // ... or only its beginning, cut where a clause ends
        const [heads, headsOut] = this.beginnings(reading, meter);
        for (const [id, match] of heads) best.set(id, match);
        for (const [id, ruled] of headsOut) out.set(id, ruled);
      }
      if (!best.size && !out.size) {  // ... or no wording at all: a removed name retold in the reporter's words
        const [retold, retoldOut] = this.retoldNames(reading, meter);
        for (const [id, match] of retold) best.set(id, match);
        for (const [id, ruled] of retoldOut) out.set(id, ruled);
      }
      // A value one wording shows withholds the entry, whichever wording ranks first (_match.py:answer).
      for (const [id, why] of held) {
        const m = best.get(id);
        if (m && m.grade === "confirmed") best.set(id, { ...m, grade: "candidate", held: why, missing: [...m.missing, ...why] });
      }
      return [best, out];
    }
    /* An error of the chain the paste ended with whose words the next part's exception line says again, read on its
     * own (the paste up to that chain sentence): an entry matched but not confirmed is confirmed from there where
     * that part's own exception line matched and ties it by more than its words; at most R.relays parts, from the
     * last (_match.py:_relayed). */
    relayed(reading, release, source, meter, logged, best, out) {
      const R = this.R, text = reading.text, final = reading.final();
      if (final === null || !final.size) return;
      const links = chained(text, R, meter), ended = reading.ends;
      let read = 0;
      for (let place = links.length - 1; place >= 0; place--) {
        const link = links[place];
        let index = 0, high = ended.length;
        while (index < high) {
          const mid = (index + high) >> 1;
          if (ended[mid][0] < link) index = mid + 1; else high = mid;
        }
        if (read >= R.relays) break;
        if (!index || index >= ended.length) continue;
        const [before, earlier] = ended[index - 1], [after, later] = ended[index];
        const stop = place + 1 < links.length ? links[place + 1] : text.length;
        const line = lineStart(text, before - 1);
        if ((place && before < links[place - 1]) || after > stop || !final.has(line)
            || !final.has(lineStart(text, after - 1)) || !sameWords(earlier, later, R)) continue;
        read += 1;
        const part = this.read(rstrip(text.slice(0, link), R.whitespace), release, source, meter, logged);
        for (const [id, match] of this.graded(part, meter)[0]) {
          if (match.grade !== "confirmed" || match.at < 0 || lineStart(text, match.at) !== line
              || (best.has(id) && best.get(id).grade === "confirmed")
              || (!best.has(id) && !out.has(id))
              || !match.evidence.some((one) => R.confirming.has(one.kind) && one.kind !== "words")) continue;
          const option = reading.options.find((one) => one.at === match.at);
          best.set(id, { ...match, chain: option ? option.chain : match.chain });
          out.delete(id);
        }
      }
    }
    /* Stage 1: the candidates at once; frames, failing lines, markers and a stated release when a
     * first match is graded (_match.py:_Reading). */
    read(text, release, source, meter, logged = new Set()) {
      const R = this.R, library = this.library, others = this.otherNames;
      const found = new Map(), foundJoined = new Map(), foundSpaced = new Map();
      let joined = null, multiline = null, spaced = null;
      const reading = { text, options: candidates(text, R, meter), done: false,
        at(piece) {
          if (!found.has(piece)) found.set(piece, text.indexOf(piece));
          return found.get(piece);
        },
        multiline() {  // whether the text has a line break (read once, counted once)
          if (multiline === null) { meter.work += text.length; multiline = text.includes("\n"); }
          return multiline;
        },
        joined() {  // the text with its line breaks taken out (_match.py:_Reading.joined)
          if (joined === null) { meter.work += text.length; joined = text.replaceAll("\n", ""); }
          return joined;
        },
        atJoined(piece) {
          if (!foundJoined.has(piece)) foundJoined.set(piece, this.joined().indexOf(piece));
          return foundJoined.get(piece);
        },
        spaced() {  // each line break, and the blanks around it, made one space (_match.py:_Reading.spaced)
          if (spaced === null) {
            meter.work += text.length;
            const lines = text.split("\n"), last = lines.length - 1;
            spaced = lines.map((line, at) => at === 0 ? rstrip(line, " \t") : at < last ? strip(line, " \t")
              : lstrip(line, " \t")).join(" ");
          }
          return spaced;
        },
        atSpaced(piece) {
          if (!foundSpaced.has(piece)) foundSpaced.set(piece, this.spaced().indexOf(piece));
          return foundSpaced.get(piece);
        },
        final() {  // where the error the paste ended with is stated, read once (_match.py:_Reading.final)
          this.all();
          if (this.finalRead === undefined) {
            this.finalRead = finalLines(text, this.options, this.ends, chained(text, R, meter), R, this.markers,
              Boolean(this.frames.length || this.arrows.length || this.markers.length), logged);
          }
          return this.finalRead;
        },
        checked() {  // whether the error the paste ended with is a failed check (_match.py:_Reading.checked)
          if (this.checkedRead === undefined) {
            const final = this.final();
            if (final !== null) {
              this.checkedRead = this.options.some((option) => option.at >= 0 && option.exception !== null
                && R.patterns.CHECK_NAME.test(option.exception) && final.has(lineStart(text, option.at)));
            } else {
              meter.work += text.length;
              this.checkedRead = R.patterns.CHECK_LINE.test(text);
            }
          }
          return this.checkedRead;
        },
        shown(at) {  // the frames of the exception line at `at`'s traceback (_match.py:_Reading.shown)
          const start = this.startOf(at);  // reads the paste's frames, markers and ends first
          const found = tracebackOf(this.frames, start, at);
          return found.length ? found : framesAfter(this.frames, text, at, this.markers, this.ends, R);
        },
        startOf(at) {  // where the traceback of the exception line at `at` starts (_match.py:_Reading.start_of)
          this.all();
          if (!this.starts.has(at)) {
            this.starts.set(at, at >= 0 ? tracebackStart(this.markers, this.ends, at, saidAt(text, at, R)) : -1);
          }
          return this.starts.get(at);
        },
        all() {
          if (this.done) return this;
          this.done = true;
          this.frames = frames(text, R, meter);
          this.arrows = arrows(text, R, meter);
          this.markers = markers(text, R, meter);
          this.ends = ends(text, R, meter);
          this.starts = new Map();
          let stated = release, from = source;
          const given = stated !== null && stated !== undefined;
          const said = given ? [stated] : statedReleases(text, library, R, meter, others);
          if (!given) {
            stated = said.length ? said[said.length - 1] : null;
            from = "stated";
          }
          this.release = plain(stated, R);
          this.source = stated ? from : null;
          const named = given || !said.length ? said : [...said, ...releasesBeside(text, library, R, meter, others)];
          this.releases = [...new Set(named.map((one) => plain(one, R)).filter((one) => one))];
          return this;
        } };
      return reading;
    }
    /* A candidate of the paste that is, whole, the end of a wording: only possible (_match.py:Lookup._ends). */
    ends(reading, meter) {
      return this.partOfWording(this.tails, reading, meter, (item, omitted) => {
        const found = wholeEnd(item, reading, this.library, this.R, meter);
        return found === null ? null : { ...found, tail: omitted };
      }, (omitted) => "the paste shows only the end of the message; the whole message begins " +
        `${codeSpan(rstrip(omitted, this.R.whitespace))}: paste it whole, or the traceback, to confirm it`);
    }
    /* A wording's beginning that the paste shows cut where a clause or a word ends: only possible
     * (_match.py:Lookup._beginnings). */
    beginnings(reading, meter) {
      return this.partOfWording(this.heads, reading, meter, (item) => {
        const found = closedBeginning(item, reading, this.library, this.R, meter);
        return found === null ? null : { ...found, head: item.template.source };
      },
        (omitted) => "the paste shows only the beginning of the message; the whole message goes on " +
          `${codeSpan(omitted)}: paste it whole, or the traceback, to confirm it`);
    }
    /* The one walk of ends and beginnings (_match.py:Lookup._part_of_wording). */
    partOfWording(groups, reading, meter, find, hint) {
      const best = new Map(), out = new Map();
      for (const [gate, parts] of groups) {
        if (!hasPiece(reading, gate, meter)) continue;
        for (const [item, omitted] of parts) {
          if (!item.pieces.every((piece) => hasPiece(reading, piece, meter))) continue;
          const found = find(item, omitted);
          if (found === null) continue;
          let graded = this.grade(found, reading, meter);
          const id = item.known.id;
          if (graded.ruledOut) {
            if (!best.has(id) && (!out.has(id) || better(graded.match, out.get(id).match))) out.set(id, graded);
            break;
          }
          graded = { ...graded, grade: "candidate", missing: [hint(omitted), ...graded.missing] };
          if (!best.has(id) || better(graded, best.get(id))) {
            best.set(id, graded);
            out.delete(id);
          }
          break;
        }
      }
      return [best, out];
    }
    /* A removed API's own name, whole, on a line that says it is gone, where no wording matched: only possible
     * (_match.py:Lookup._retold_names). */
    retoldNames(reading, meter) {
      const best = new Map(), out = new Map();
      if (!this.retold.size) return [best, out];
      meter.work += reading.text.length;
      for (const line of reading.text.split("\n")) {
        const named = [...line.matchAll(this.R.patterns.NAME)].map((found) => found[0])
          .filter((name) => this.retold.has(name));
        meter.work += line.length;
        if (!named.length || !this.R.patterns.RETOLD_GONE.test(line.toLowerCase())) continue;
        for (const name of named) {
          for (const one of this.retold.get(name)) {
            if (best.has(one.id) || out.has(one.id)) continue;
            const item = { known: one, wording: 0, fixed: 0 };
            const graded = this.grade(makeMatch(item, {}, null, false, this.R.chain, false, -1), reading, meter);
            if (graded.ruledOut) { out.set(one.id, graded); continue; }
            const hint = `the paste names ${codeSpan(name)} but does not show the error's message: paste the message, ` +
              "or the traceback, to confirm it";
            best.set(one.id, { ...graded, grade: "candidate", missing: [hint, ...graded.missing] });
          }
        }
      }
      return [best, out];
    }
    /* The entry's other causes that concern the matched wording (_match.py:Lookup.other_causes). */
    otherCauses(match, meter) {
      meter = meter || new Meter();
      const found = [];
      for (const [cause, templates] of this.others.get(match.known.id) || []) {
        if (!cause.messages.length || !templates.length) { found.push(cause); continue; }
        const template = this.wordingTemplates.get(`${match.wording} ${match.known.id}`);
        if (template === undefined) continue;
        let text = "";
        template.pieces.forEach((piece, index) => {
          text += piece + (index < template.slots.length ? (match.values[template.slots[index]] ?? "") : "");
        });
        meter.work += points(text);
        if (templates.some((form) => form.match(text, meter) !== null)) found.push(cause);
      }
      return found;
    }
    /* Whether the match is of the error the paste ended with (_match.py:Lookup._ended_with). */
    endedWith(match, reading, meter) {
      const final = reading.final();
      if (final === null) return true;
      if (match.at >= 0) return final.has(lineStart(reading.text, match.at));
      // A beginning the paste shows alone is looked for as shown: the whole wording is in no message of the paste.
      const template = match.head ? new MessageTemplate(match.head) : this.wordingTemplates.get(`${match.wording} ${match.known.id}`);
      if (template === undefined) return false;
      const forms = [template, ...capitalised(template.source, this.R), ...onClass(template.source, this.R)];
      return reading.options.some((option) => option.at >= 0 && final.has(lineStart(reading.text, option.at))
        && forms.some((form) => form.search(option.message, meter) !== null));
    }
    /* Where the exception line is whose whole message the matched words are, or null (_match.py:_said_whole). */
    saidWhole(match, reading, meter) {
      if (match.exact) return match.at;
      const template = this.wordingTemplates.get(`${match.wording} ${match.known.id}`);
      if (template === undefined) return null;
      const option = reading.options.find((one) => one.at >= 0 && one.exception !== null
        && template.match(one.message, meter) !== null);
      return option === undefined ? null : option.at;
    }
    /* The class of the exception lines whose messages hold words found inside the text, when none is the wording's
       own (the last such line's), or null (_match.py:_other_class). */
    otherClass(match, reading, meter) {
      if (match.exact) return null;
      const template = this.wordingTemplates.get(`${match.wording} ${match.known.id}`);
      if (template === undefined) return null;
      let other = null;
      for (const option of reading.options) {
        if (option.at < 0 || option.exception === null || template.search(option.message, meter) === null) continue;
        if (sameException(option.exception, match.matched.exception)) return null;
        other = option.exception;
      }
      return other;
    }
    /* Whether a failing line holds the matched wording's longest fixed piece (_match.py:_writes_words). */
    writesWords(match, code) {
      const template = this.wordingTemplates.get(`${match.wording} ${match.known.id}`);
      const piece = template === undefined ? "" : template.pieces.reduce((a, b) => (b.length > a.length ? b : a), "");
      return [...piece].length >= this.R.writtenMin && withoutComment(code).split("\\").join("").includes(piece);
    }
    raising(shown) {
      for (let i = shown.length - 1; i >= 0; i--) {
        if (!this.runtime.some((pkg) => pathMatches(shown[i].path, `${pkg}/`))) return shown[i];
      }
      return null;
    }
    grade(match, reading, meter) {
      const R = this.R, library = this.library;
      const one = match.known, wording = match.matched, d = one.diagnosis;
      const evidence = [], missing = [];
      reading.all();
      const shown = reading.shown(match.at);
      const releases = reading.release ? reading.releases : releasesInPaste(one, shown, R);
      const ruled = (reason) => ({ ruledOut: true, match, reason });
      if (releases.length) {
        const said = verdict(one, wording, releases, reading.source || "frames", library, R);
        match = { ...match, release: said };
        if (said.raises === false) return ruled(said.advice);
        if (said.raises) {
          evidence.push({ kind: "release", detail: `${library} ${releases.slice(0, 3).join(", ")} (${said.source}) ` +
            `raises this wording (${said.range})` });
        }
      }
      const excluded = first(shown, d.exclude);
      if (excluded !== null) return ruled(`a frame in ${where(excluded)} shows another error worded alike`);
      // Raised within the library's call: a whole traceback without a frame in its folder is another caller's.
      if (wording.called && d.within !== null && !shown.some((f) => pathMatches(f.path, d.within))
        && complete(reading.text, reading.startOf(match.at), match.at, R, meter)) {
        return ruled(`a complete traceback shows no frame of ${library}, whose call raises this error: another caller's`);
      }
      const raising = this.raising(shown);
      // The user's own `raise` wrote the words, under whatever class; a `raise` of a value alone may relay the
      // library's error: possible (_match.py:_grade, rules.RELAYED).
      const whole = this.saidWhole(match, reading, meter);
      let writer = match.exact ? raising : whole === null ? null : this.raising(reading.shown(whole));
      if (writer === null && raising !== null && this.writesWords(match, raising.code)) writer = raising;  // no retelling
      let relayed = null;
      if (writer !== null && R.patterns.OWN_RAISE.test(writer.code)
        && ownFile(writer.path, [library, ...this.runtime], R)) {
        if (!R.patterns.RELAYED.test(writer.code)) {
          return ruled(`your own code raises these words (${where(writer)}: ${codeSpan(writer.code.slice(0, 120))}), ` +
            "not an error this entry documents");
        }
        relayed = writer;
      }
      if (raising !== null && !wording.own && first([raising], d.innermostExclude) !== null) {
        return ruled(`raised in ${where(raising)}: ${library}'s own code, not the change this entry documents`);
      }
      if (raising !== null && d.requireFrame && !wording.device && first([raising], d.frames) === null) {
        return ruled(`raised in ${where(raising)}, not where this error is raised ` +
          `(${d.frames.length ? where(d.frames[0]) : "?"})`);
      }
      // Raised in a file named like the documented one, not the installed library's: nothing confirms it.
      const copied = raising !== null && d.requireFrame && !wording.device && first([raising], d.frames, R) === null
        ? raising : null;
      // A stated release whose series raises this wording at a line no frame of a whole traceback shows.
      const clash = reading.release && reading.source === "stated" && shown.length
        && complete(reading.text, reading.startOf(match.at), match.at, R, meter)
        ? contradicted(one, wording, releases, shown, R) : null;
      // A recognised text counts where it may be this error's: not inside another exception's traceback.
      if (match.recognised && recognisedElsewhere(match, reading, meter, R)) {
        match = { ...match, recognised: false };
      }
      // Words found inside an exception line of another class: its traceback ties nothing (_match.py:_grade).
      const other = this.otherClass(match, reading, meter);
      const failing = [...shown, ...tracebackOf(reading.arrows, reading.startOf(match.at), match.at)]
        .filter((f) => f.code);
      // A raise in the runtime is reached from any caller: its failing lines tell nothing against the entry.
      if (!wording.words && one.recognisedBy.length && !match.recognised && failing.length && !d.runtime) {
        return ruled("the failing lines shown are not the ones this case shows");
      }
      const named = Object.entries(match.values).map(([expression, value]) =>
        [expression, expression in match.names ? match.names[expression] : value]);
      let own = named.filter(([expression, value]) =>
        typeOf(d, expression, R) === "user" && this.classes.has(fnv1a(value.split(".", 1)[0]))).map(([, v]) => v);
      let foreign = named.filter(([expression, value]) =>
        typeOf(d, expression, R) === "library-class" && this.classes.size > 0
        && !this.classes.has(fnv1a(value.split(".", 1)[0]))).map(([, v]) => v);
      // A value of the other kind leaves the words to the release: one inside the wording's range tells.
      if ((own.length || foreign.length) && evidence.some((e) => e.kind === "release")) own = foreign = [];
      // Another cause prints these words on other releases (_match.py:_grade).
      const others = this.otherCauses(match, meter);
      const apart = releases.length > 0 && match.release != null
        && (match.release.raises === true || match.release.range === null)
        && others.every((cause) => releases.every((r) => contains(cause.releases, r, R) === false));
      if (wording.words && !own.length && !foreign.length && (!others.length || apart)) {
        let said = wording.own ? `${library} itself raises this message` : "the message names what this entry is about";
        if (others.length) {
          said += `, and ${library} ${describe(releases)} is outside ` + others.map((c) => c.releases).join(", ") +
            ", where another cause prints it too";
        }
        evidence.push({ kind: "words", detail: said });
      }
      for (const value of own) {
        missing.push(`${codeSpan(value)} is a class ${library} defines: if your code calls it so, your code is newer ` +
          `than the installed ${library} (upgrade ${library}); the traceback or the release tells`);
      }
      for (const value of foreign) {
        missing.push(`${codeSpan(value)} is not a class ${library} defines: the same words come from another cause ` +
          `when ${library} reads this from a class of your own; the traceback or the release tells`);
      }
      // An other cause raised through the same frames: they tie the paste to neither (_match.py:_grade).
      const blind = !apart && others.some((cause) => cause.sameFrames);
      const framed = blind || other !== null ? null : first(shown, d.frames, R);
      if (framed !== null) evidence.push({ kind: "frame", detail: `a frame in ${where(framed)}` });
      let coded = null;
      for (let i = failing.length - 1; !blind && other === null && i >= 0 && coded === null; i--) {
        if (uses(failing[i].code, d.code, R)) coded = failing[i];
      }
      if (coded !== null) {
        evidence.push({ kind: "code", detail: `the failing line ${codeSpan(coded.code.slice(0, 120))} uses ` +
          d.code.map((n) => codeSpan(n)).join(", ") });
      }
      if (match.recognised && other === null) {
        evidence.push({ kind: "recognised", detail: "the paste shows the failing line this case shows" });
      }
      const definesClass = this.classes.size ? (value) => this.classes.has(fnv1a(value.split(".", 1)[0]))
          || this.classes.has(fnv1a(value.slice(value.lastIndexOf(".") + 1))) : null;
      for (const [value, because] of tiedValues(d, Object.fromEntries(named), definesClass)) {
        evidence.push({ kind: "value", detail: `${codeSpan(value)} ${because}` });
      }
      // A value the entry says prints these words for another cause: nothing else shown confirms it.
      const withheld = withheldValues(d, Object.fromEntries(named), definesClass)
        .concat(locatedElsewhere(d, named, library, R));
      const held = withheld.map(([value, because]) => `${codeSpan(value)} ${because}`);
      // Words found inside a failed check's message are what the test compared (_match.py:_grade, round twenty).
      const checked = !match.exact && whole === null && !R.patterns.CHECK_NAME.test(wording.exception)
        && reading.checked();
      let confirmed = !withheld.length && copied === null && clash === null && relayed === null && !checked
        && evidence.some((e) => R.confirming.has(e.kind));
      // Only the error the paste ended with is the user's (_match.py:_grade).
      const earlier = confirmed && !wording.device && !this.endedWith(match, reading, meter);
      confirmed = confirmed && !earlier;
      if (earlier) {
        missing.push(hintWords(R, "earlier", {}));
      } else if (checked) {
        missing.push(hintWords(R, "checked", {}));
      } else if (relayed !== null) {
        missing.push(`your code relays these words from a value (${where(relayed)}: ` +
          `${codeSpan(relayed.code.slice(0, 120))}): an error ${library} raised, or words of your own; the original error's traceback tells (raise it \`from\` ` +
          "the error, not `from None`)");
      } else if (withheld.length) {
        missing.push(...held);
      } else if (copied !== null) {
        missing.push(`raised in ${where(copied)}, a file named like ${library}'s in another package or folder: ` +
          `a frame of the installed ${library} confirms it`);
      } else if (clash !== null) {
        missing.push(`the traceback was raised at line ${clash[1]} of ${one.linesPath}, but ${library} ${clash[0]} ` +
          `raises it at line ${clash[2]}: the release given and the traceback disagree (another install, or edited ` +
          "code); give the release the traceback ran with");
      } else if (!confirmed) {
        const told = wording.words && !own.length && !foreign.length
          ? others.map((cause) => otherHint(cause, releases, wordingRange(one, wording), library, R)) : [];
        if (other !== null) {
          missing.push(...told, `the traceback shown raised ${codeSpan(other)}, not ${codeSpan(wording.exception)}: ` +
            "its frames are that error's (another error's, or a retelling's); the " +
            `${codeSpan(wording.exception)}'s own traceback confirms it`);
        } else {
          missing.push(...told, ...hints(match, d, shown, releases, library, told.length > 0, blind, R));
        }
      }
      return { ...match, grade: confirmed ? "confirmed" : "candidate", evidence, missing, shown: shown.length > 0,
        withheld: [...own, ...foreign, ...withheld.map(([value]) => value)], others, held };
    }
  }

  /* -- display helper for errorkb.js (no matching rule) --------------------------------------- */

  /* A title's Markdown code spans, as [{text, code}] pieces: a run of N backticks opens a span
   * that the next run of exactly N closes (one space inside each end is dropped when both are
   * there, as CommonMark does); an unclosed run is plain text. The caller puts each piece in a
   * text node or a <code> element's textContent, so a title can never become markup. */
  function codeSpans(text) {
    const pieces = [];
    let plainText = "", i = 0;
    while (i < text.length) {
      if (text[i] !== "`") { plainText += text[i++]; continue; }
      let run = 0;
      while (text[i + run] === "`") run++;
      let close = -1, j = i + run;
      while (j < text.length) {
        if (text[j] !== "`") { j++; continue; }
        let other = 0;
        while (text[j + other] === "`") other++;
        if (other === run) { close = j; break; }
        j += other;
      }
      if (close < 0) { plainText += text.slice(i, i + run); i += run; continue; }
      let code = text.slice(i + run, close);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
      if (plainText) pieces.push({ text: plainText, code: false });
      pieces.push({ text: code, code: true });
      plainText = "";
      i = close + run;
    }
    if (plainText) pieces.push({ text: plainText, code: false });
    return pieces;
  }

  return {
    MessageTemplate, TemplateSyntaxError, Meter, Lookup, compileRules, candidates, normalize, frames, parse, keepTail,
    isDegenerate, fixedText, contains, verdict, known, origin, codeSpans, codeSpan, fnv1a, hintWords,
  };
});
