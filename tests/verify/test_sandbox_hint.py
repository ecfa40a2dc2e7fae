"""What `errorkb verify` says when bwrap cannot make the sandbox: the hint fits what bwrap said.

A virtual environment reached through a symbolic link made bwrap print "Can't mkdir .../.venv/bin", and the message
blamed a container's seccomp profile: the user was sent to change Docker's settings for a path problem.
"""

from errorkb.verify import sandbox

_IN_A_CONTAINER = {"/proc/self/status": "Name:\tpython\nSeccomp:\t2", "/proc/sys/kernel/unprivileged_userns_clone": "1",
                   "/proc/sys/user/max_user_namespaces": "15000",
                   "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "0"}


def _machine(monkeypatch):
    monkeypatch.setattr(sandbox, "_read", lambda path: _IN_A_CONTAINER.get(path, ""))


def test_a_folder_bwrap_could_not_make_is_said_to_be_a_path_problem_not_seccomp(monkeypatch):
    _machine(monkeypatch)
    hint = sandbox._hint("bwrap: Can't mkdir /work/wt/x/.venv/bin: File exists")
    assert "symbolic link" in hint and "real path" in hint
    assert "seccomp" not in hint


def test_a_namespace_refused_in_a_container_still_points_at_its_seccomp_profile(monkeypatch):
    _machine(monkeypatch)
    hint = sandbox._hint("bwrap: No permissions to create new namespace, likely because the kernel does not allow "
                         "non-privileged user namespaces.")
    assert "seccomp=unconfined" in hint
