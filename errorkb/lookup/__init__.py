"""The diagnosis: which documented entry a pasted error (or a live exception) belongs to, and
how sure that is. One matcher, used by the paste box (its JavaScript reads the same rules from
the index it is shipped), `errorkb lookup` and `errorkb show`, the hook, the pytest hint and
`errorkb new --from-traceback`.

- `_rules`:   every constant and pattern, as data (`rules_document` ships them in an index);
- `_paste`:   a paste read: tail, normalisation, candidate messages, frames, a stated release;
- `_known`:   an index item read into typed objects (wordings, releases, diagnosis);
- `_release`: a release against the matched wording's range, and what to do on it;
- `_match`:   matching, grading by evidence (confirmed or candidate), ranking;
- `_index`:   where an index comes from (every installed knowledge base's, a file, an address);
- `build`:    entries → index items (imported by those that build an index, not by readers).
"""

from errorkb.lookup import _rules as rules
from errorkb.lookup._index import (
    GROUP,
    NO_INDEX,
    Index,
    IndexUnavailable,
    installed_indexes,
    load_index,
    load_indexes,
    read_index,
    shipped_index,
)
from errorkb.lookup._known import (
    Diagnosis,
    FrameRule,
    Known,
    Placeholder,
    Releases,
    Wording,
    mapping,
    names_releases,
    since_words,
)
from errorkb.lookup._match import (
    Answer,
    Evidence,
    Grade,
    Hint,
    Lookup,
    Match,
    RuledOut,
    fits,
    fits_wording,
    fnv1a,
    frame_matches,
    hint_json,
    hint_words,
    read_wording,
)
from errorkb.lookup._match import _same_words as same_words
from errorkb.lookup._paste import (
    Candidate,
    Frame,
    candidates,
    frames,
    installed_path,
    keep_tail,
    message_lines,
    normalize,
    plain_quotes,
    stated_release,
    stated_releases,
    strip,
)
from errorkb.lookup._release import INSTALLED, STATED, Verdict, advice, contains, releases_in_paste, verdict

CAP = rules.CAP
CHAIN = rules.CHAIN

__all__ = ["CAP", "CHAIN", "GROUP", "INSTALLED", "NO_INDEX", "STATED",
           "Answer", "Candidate", "Diagnosis", "Evidence", "Frame",
           "FrameRule", "Grade", "Hint", "Index", "IndexUnavailable", "Known", "Lookup", "Match", "Placeholder",
           "Releases",
           "RuledOut", "Verdict", "Wording", "advice", "candidates", "contains", "fits", "fits_wording", "fnv1a",
           "frame_matches", "hint_json", "hint_words",
           "frames", "installed_indexes", "installed_path",
           "keep_tail", "load_index", "load_indexes", "mapping", "message_lines", "names_releases",
           "normalize", "plain_quotes", "read_index", "read_wording", "releases_in_paste",
           "rules", "same_words", "shipped_index", "since_words", "stated_release", "stated_releases", "strip",
           "verdict"]
