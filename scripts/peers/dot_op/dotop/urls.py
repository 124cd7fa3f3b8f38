"""Provider endpoints under /o/, the login form, and one test-control endpoint."""
from django.contrib.auth import views as auth_views
from django.http import JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.models import AccessToken, RefreshToken


@csrf_exempt
def revoke_user(request, username):
    """POST: revokes every grant of a user, as an administrator would (loopback test peer only).
    The broker's next upstream refresh for that user must then be refused."""
    if request.method != "POST":
        return JsonResponse({"error": "POST only"}, status=405)
    refresh = RefreshToken.objects.filter(user__username=username, revoked__isnull=True)
    count = refresh.count()
    for token in refresh:
        token.revoke()
    AccessToken.objects.filter(user__username=username).delete()
    return JsonResponse({"revoked": count})


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("test-control/revoke/<str:username>", revoke_user),
]
