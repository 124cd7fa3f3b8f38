"""Settings of the upstream OAuth2 / OpenID Connect provider the connector tests sign in through.
Test peer only: loopback, throwaway keys, fast password hashing."""
import os

RUN_DIR = os.environ.get("DOT_DIR", "/tmp/idconnect-peers/dot")
PORT = os.environ.get("DOT_PORT", "9100")
ISSUER = f"http://127.0.0.1:{PORT}/o"
BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET_KEY = "idconnect-test-peer-" + PORT
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "oauth2_provider"]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "dotop.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [os.path.join(BASE_DIR, "templates")],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]
# The broker's tests call in parallel: WAL, a busy timeout and write transactions that take the
# lock up front, so that concurrent requests wait instead of failing with "database is locked".
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(RUN_DIR, "db.sqlite3"),
                         "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE",
                                     "init_command": "PRAGMA journal_mode=WAL;"}}}
# The default PBKDF2 costs ~0.3 s per login on a busy 2-core machine; this peer holds test users only.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = True
LOGIN_URL = "/accounts/login/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

_key = os.path.join(RUN_DIR, "oidc.key")
_ttl = int(os.environ.get("DOT_ACCESS_TTL", "3600"))
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RSA_PRIVATE_KEY": open(_key).read() if os.path.exists(_key) else "",
    # The broker always sends PKCE S256; requiring it proves that it does.
    "PKCE_REQUIRED": True,
    "SCOPES": {"openid": "OpenID Connect", "profile": "Profile", "email": "Email", "groups": "Groups", "read": "Read"},
    "DEFAULT_SCOPES": ["openid"],
    "OAUTH2_VALIDATOR_CLASS": "dotop.validator.Validator",
    "ACCESS_TOKEN_EXPIRE_SECONDS": _ttl,
    "ID_TOKEN_EXPIRE_SECONDS": _ttl,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 86400,
    "ROTATE_REFRESH_TOKEN": True,
    "REQUEST_APPROVAL_PROMPT": "auto",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
}
# Errors (with tracebacks) go to the server log under $DOT_DIR.
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"stderr": {"class": "logging.StreamHandler"}},
           "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}}}
