"""Users and clients of the test peer. Run with: manage.py shell -c "exec(open('seed.py').read())"."""
import os

from django.contrib.auth.models import Group, User
from oauth2_provider.models import Application

redirects = os.environ.get("DOT_REDIRECT_URIS", "http://127.0.0.1:8080/oauth/callback")
admins, _ = Group.objects.get_or_create(name="admins")
developers, _ = Group.objects.get_or_create(name="developers")
for username, password, first, last, groups in [("alice", "alicepw", "Alice", "Liddell", [admins, developers]),
                                                ("bob", "bobpw", "Bob", "Builder", [developers])]:
    user = User.objects.create_user(username, f"{username}@example.org", password, first_name=first, last_name=last)
    user.groups.set(groups)

common = dict(redirect_uris=redirects, algorithm=Application.RS256_ALGORITHM, hash_client_secret=False,
              skip_authorization=True, client_type=Application.CLIENT_CONFIDENTIAL)
Application.objects.create(name="broker (authorization code)", client_id="broker", client_secret="broker-secret",
                           authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE, **common)
Application.objects.create(name="broker (password)", client_id="broker-ropc", client_secret="ropc-secret",
                           authorization_grant_type=Application.GRANT_PASSWORD, **common)
print("seeded", User.objects.count(), "users,", Application.objects.count(), "clients")
