import Foundation
import IdentityCore

/// SAML single logout (docs/connectors/saml.md, "Single logout"), at the IdP's SingleLogoutService
/// (`logoutUri`, or from its metadata: HTTP-Redirect when offered, else HTTP-POST):
///
/// - SP-initiated: a LogoutRequest naming the user exactly as the assertion did (NameID with its
///   qualifiers, SessionIndex), signed when `signRequests`; the IdP's LogoutResponse is checked
///   against it at `/saml/slo`.
/// - IdP-initiated: a LogoutRequest checked by ``SAMLLogoutValidator``, answered with a
///   LogoutResponse signed whenever the SP has a key.
///
/// XML and signatures are handled on the blocking-work pool.
extension SAMLConnector: SingleLogoutConnector {
    private struct SavedLogout: Codable {
        var requestID: String
    }

    private struct ReplyState: Codable {
        var requestID: String
        var relayState: String?
    }

    func beginLogout(_ request: UpstreamLogoutRequest) async throws -> UpstreamLogoutStart? {
        let idp = try currentIdentityProvider()
        guard let singleLogout = idp.singleLogout else { return nil }
        let extra = request.upstream?.extra ?? [:]
        let logout = SAMLLogoutRequest(issueInstant: clock.now(), destination: singleLogout.endpoint.location, issuer: options.spEntityID,
                                       nameID: SAMLNameID(userId: request.userId, extra: extra, fallbackFormat: options.nameIDFormat),
                                       sessionIndex: extra["sessionIndex"])
        let action = try await send(logout.xml, as: .request, relayState: request.relayState,
                                    to: singleLogout.endpoint.location, binding: singleLogout.binding,
                                    signedWith: options.signRequests ? spKeys : nil)
        return UpstreamLogoutStart(action: action, savedState: try JSONEncoder().encode(SavedLogout(requestID: logout.id)))
    }

    func finishLogout(_ message: LogoutMessage, savedState: Data) async throws -> UpstreamLogoutResult {
        guard let saved = try? JSONDecoder().decode(SavedLogout.self, from: savedState) else {
            return .refused("This sign-out cannot be completed.")
        }
        let validator = SAMLLogoutValidator(idp: try currentIdentityProvider(), singleLogoutURL: options.singleLogoutURL,
                                            clockSkew: options.clockSkew)
        return try await blocking.run { validator.checkResponse(message, requestID: saved.requestID) }
    }

    func verifyLogoutRequest(_ message: LogoutMessage) async throws -> IdentitySourceLogoutVerdict {
        // Without its metadata, or without a single-logout endpoint to answer, this IdP takes no part.
        guard let idp = identityProvider.provider, idp.singleLogout != nil else { return .notForThisConnector }
        let validator = SAMLLogoutValidator(idp: idp, singleLogoutURL: options.singleLogoutURL, clockSkew: options.clockSkew)
        let now = clock.now()
        switch try await blocking.run({ validator.checkRequest(message, now: now) }) {
        case .notForThisIdP:
            return .notForThisConnector
        case .refused(let reason):
            return .refused(reason)
        case .accepted(let request):
            let reply = ReplyState(requestID: request.id, relayState: message.parameters["RelayState"])
            return .accepted(IdentitySourceLogout(
                userId: request.nameID, upstreamSessionIds: request.sessionIndexes,
                oneTimeUse: .init(id: "saml-logout:\(options.spEntityID):\(request.id)", expiresAt: request.expiresAt),
                replyState: try JSONEncoder().encode(reply)))
        }
    }

    func logoutReply(_ logout: IdentitySourceLogout, ended: Bool) async throws -> RedirectAction {
        guard let singleLogout = try currentIdentityProvider().singleLogout,
              let state = try? JSONDecoder().decode(ReplyState.self, from: logout.replyState) else {
            throw ConnectorFailure(.invalidResponse, "The identity provider has no single-logout endpoint to answer.")
        }
        let destination = singleLogout.endpoint.responseLocation ?? singleLogout.endpoint.location
        let response = SAMLLogoutResponse(inResponseTo: state.requestID, issueInstant: clock.now(), destination: destination,
                                          issuer: options.spEntityID, success: ended)
        return try await send(response.xml, as: .response, relayState: state.relayState, to: destination,
                              binding: singleLogout.binding, signedWith: spKeys)
    }

    /// `xml` over `binding` to `destination`, signed with `keys` when given.
    private func send(_ xml: String, as parameter: SAMLBindings.Parameter, relayState: String?, to destination: String,
                      binding: SAMLOptions.Binding, signedWith keys: SPSigningKeys?) async throws -> RedirectAction {
        switch binding {
        case .redirect:
            return .redirect(try await blocking.run {
                try SAMLBindings.redirectURL(destination, parameter, xml: xml, relayState: relayState, signingKey: keys?.query)
            })
        case .post:
            let value = try await blocking.run { try SAMLBindings.postValue(xml: xml, signingKey: keys?.xml) }
            var fields: [RedirectAction.FormField] = [.init(parameter.rawValue, value)]
            if let relayState { fields.append(.init("RelayState", relayState)) }
            return .autoPost(url: destination, fields: fields)
        }
    }
}
