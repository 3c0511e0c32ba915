"""Code provenance: the digest of ocean/ and tuning/, stored with a study at launch and checked
before its games go on (real SQLite)."""
import pytest

from tests.tuning.fakes import tiny_spec_dict
from tuning.storage.handle import create_study
from tuning.storage.provenance import ATTR_CODE, CodeChanged, code_digest, code_record, describe_code, short
from tuning.study.spec import parse_spec

OTHER = "f" * 64  # the digest of code other than the running one


def test_the_record_names_the_digest_and_the_libraries_that_decide_results():
    record = code_record()
    assert len(record["digest"]) == 64 and int(record["digest"], 16) >= 0
    assert record["digest"] == code_digest()  # the same process, the same code
    assert {"numba", "optuna", "ray"} <= set(record) and all(record[k] != "absent" for k in ("numba", "optuna", "ray"))


def test_a_study_stores_its_code_at_launch_and_refuses_other_code_unless_allowed(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict()), sqlite_url)
    try:
        assert [r["digest"] for r in handle.code] == [code_digest()]
        assert handle.check_code(allow_change=False, command="tune resume") == handle.code  # same code: goes on
        handle.study.set_user_attr(ATTR_CODE, [{**code_record(), "digest": OTHER, "since": 0}])
        with pytest.raises(CodeChanged) as info:
            handle.check_code(allow_change=False, command="tune resume")
        message = str(info.value)
        assert "\n" not in message and short(OTHER) in message and short(code_digest()) in message
        assert "--allow-code-change" in message
        assert len(handle.code) == 1  # nothing stored by a refusal
        records = handle.check_code(allow_change=True, command="tune resume")
        assert [r["digest"] for r in records] == [OTHER, code_digest()] == [r["digest"] for r in handle.code]
        assert describe_code(handle.code).startswith("spans 2 code versions: ffffffffffff from trial 0")
    finally:
        handle.close()
