"""Record the golden outputs the tests hold every change to (``tests/test_golden.py``).

For every fixture and the 30-block feeder of ``tools/feeder_n.py``: the description
(``cspace trace --describe``), the JSON (``--json``), the sampled path (``--path X.csv``)
and the Table 2 statistics (``cspace stats``, but the runtime, the one measured figure).
Run it only for a change of output that is right, and say why in the same commit:

    python tools/record_goldens.py            # every golden
    python tools/record_goldens.py feeder     # one
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
sys.path.insert(0, str(ROOT))

from tests.golden_outputs import NAMES, outputs, stored  # noqa: E402  (the repository's root is on the path first)


def main(names: list[str]) -> None:
    for name in names or NAMES:
        for suffix, text in outputs(name).items():
            path, data = stored(name, suffix, text)
            for old in GOLDEN.glob(f"{name}.{suffix}*"):
                old.unlink()
            path.write_bytes(data)
        print(f"recorded {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
