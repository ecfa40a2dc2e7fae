"""What verification produced, as files keep it: the standing report and the version matrix.

Below the runner and above the entry model: the verifier writes these records, the site, the
hook, the lookup and the CLI read them, and none of those readers imports the verifier. Modules:

- `records`  one check's record (`CheckRecord`), its outcome and code, the target names;
- `keys`     what a verdict depends on (`inputs_digest`, `VerdictKey`), defined once for the
             verdict cache, the version matrix and the pages' *stale* marks;
- `report`   reports: reading, the newest-record rule, merging, writing the standing report;
- `matrix`   the version-matrix file and its per-entry summary;
- `store`    the file discipline both share: a lock from read to replace, merge with what is on
             disk, never overwrite a file that does not parse, keep the mode, no temp files left.
"""
