"""Releases profile, email and group claims in id_tokens and userinfo."""
from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    oidc_claim_scope = dict(OAuth2Validator.oidc_claim_scope, groups="groups", preferred_username="profile")

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.username,
            "name": user.get_full_name(),
            "email": user.email,
            "email_verified": True,
            "groups": sorted(group.name for group in user.groups.all()),
        }
