"""Port of the OpenID Foundation conformance suite's Basic OP, Config OP and Back-Channel OP plans.

Source of truth: github openid-certification/conformance-suite,
  src/main/java/net/openid/conformance/openid/OIDCCBasicTestPlan.java, OIDCCConfigTestPlan.java and
  OIDCCBackchannelRpInitiatedLogoutTestPlan.java,
run with the variant: server metadata = discovery, client registration = static_client,
response_type = code, response_mode = default, client auth = client_secret_basic
(oidcc-server-client-secret-post: client_secret_post).

Each test module of the suite is one class in ``modules_*.py`` (``oidcc-prompt-login`` ->
``OIDCCPromptLogin``), listed in plan order in ``plans.py``.  Each condition class of the
suite is one function in ``cond_*.py`` named exactly like the Java class; it raises ``CondError`` when the
condition fails.  Modules call conditions with the same FAILURE / WARNING / INFO severity and the
same stop-on-failure behaviour as the Java module (``callAndStopOnFailure`` -> ``m.stop(...)``,
``callAndContinueOnFailure(..., X)`` -> ``m.cont(X, ...)``).  See ../modules.md.

Where the suite asks a human for a screenshot ("login page shown again", "error page for a bad
redirect_uri"), the port checks it mechanically: the answer must be a login page (a form with a
password field) or an error page (any other HTML page) instead of a redirect back to the client.

Output: one line per module, ``PASS|FAIL|WARNING|SKIPPED <module> <reasons>``, then a summary.
Exit status 1 when any module FAILs, 2 on usage errors, else 0.
"""
