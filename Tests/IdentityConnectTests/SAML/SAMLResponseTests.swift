import Foundation
import IdentityCore
@testable import SAMLConnector
import Testing

/// The SAML Response checks of docs/connectors/saml.md, "What the ACS checks", one change at a
/// time, on responses signed in-process.
@Suite("SAML response validation")
struct SAMLResponseTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    func validate(_ xml: String, _ builder: SAMLResponseBuilder,
                  validator: SAMLResponseValidator? = nil) throws -> Result<SAMLAssertion, SAMLRejection> {
        let validator = try validator ?? SAMLResponseBuilder.validator()
        do { return .success(try validator.validate(Data(xml.utf8), builder.expectation)) } catch { return .failure(error) }
    }

    func refused(_ xml: String, _ builder: SAMLResponseBuilder, validator: SAMLResponseValidator? = nil,
                 _ fragment: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        switch try validate(xml, builder, validator: validator) {
        case .success(let assertion):
            Issue.record("accepted, expected a refusal mentioning '\(fragment)' (user \(assertion.nameID))", sourceLocation: sourceLocation)
        case .failure(let rejection):
            #expect(fragment.isEmpty || rejection.message.contains(fragment), "\(rejection.message)", sourceLocation: sourceLocation)
        }
    }

    @Test("a signed assertion is accepted: NameID, attributes (well-known ones mapped), session end, assertion XML")
    func accepted() throws {
        let builder = SAMLResponseBuilder(now: now)
        let assertion = try validate(try builder.responseXML(), builder).get()
        #expect(assertion.nameID == "alice@example.org")
        #expect(assertion.id == "_assertion-1")
        #expect(assertion.attributes["mail"] == .string("alice@example.org"))
        #expect(assertion.attributes["email"] == .string("alice@example.org"))
        #expect(assertion.attributes["name"] == .string("Alice"))
        #expect(assertion.attributes["groups"] == .array([.string("staff"), .string("admins")]))
        // The session ends at SessionNotOnOrAfter; the conditions' NotOnOrAfter (300 s) only bounds
        // acceptance at the ACS (docs/connectors/saml.md, "Sessions").
        #expect(assertion.sessionEnd == now.addingTimeInterval(3600))
        var noSession = SAMLResponseBuilder(now: now)
        noSession.sessionNotOnOrAfter = nil
        #expect(try validate(try noSession.responseXML(), noSession).get().sessionEnd == nil)
        #expect(assertion.xml.hasPrefix("<saml:Assertion"))
        #expect(assertion.xml.contains("xmlns:saml="))
        #expect(assertion.xml.contains("SignatureValue"))
    }

    @Test("signed Response, Assertion or both; the old certificate of a rollover still verifies")
    func signatureShapes() throws {
        var builder = SAMLResponseBuilder(now: now)
        builder.signResponse = true
        #expect(try validate(try builder.responseXML(), builder).get().nameID == "alice@example.org")
        builder.signAssertion = false
        try refused(try builder.responseXML(), builder, "assertion is not signed")
        let lenient = try SAMLResponseBuilder.validator(wantAssertionsSigned: false)
        #expect(try validate(try builder.responseXML(), builder, validator: lenient).get().nameID == "alice@example.org")
        let rollover = try SAMLResponseBuilder.validator(certificates: [.otherIdP, .idp])
        var signedOnly = SAMLResponseBuilder(now: now)
        signedOnly.signResponse = false
        #expect(try validate(try signedOnly.responseXML(), signedOnly, validator: rollover).get().nameID == "alice@example.org")
        // A rollover that mixes key types: the EC certificate listed first cannot process an RSA signature; the RSA one verifies.
        let mixed = try SAMLResponseBuilder.validator(certificates: [.ecIdP, .idp])
        #expect(try validate(try signedOnly.responseXML(), signedOnly, validator: mixed).get().nameID == "alice@example.org")
        try refused(try signedOnly.responseXML(), signedOnly, validator: try SAMLResponseBuilder.validator(certificates: [.ecIdP, .otherIdP]),
                    "does not verify")
    }

    @Test("only the assertion signed: it must name the request itself; the IdP's StatusMessage is not shown; comments anywhere in the assertion refused")
    func unauthenticatedParts() throws {
        let builder = SAMLResponseBuilder(now: now)
        // An assertion answering no request (IdP-initiated), wrapped in a forged unsigned Response naming the victim's request.
        var unsolicited = builder
        unsolicited.inResponseTo = nil
        try refused(try builder.responseXML(assertion: try unsolicited.signedAssertion()), builder, "bearer confirmation")
        // With the Response signed, the IdP vouches for its InResponseTo and the assertion need not repeat it.
        var vouched = builder
        vouched.signResponse = true
        #expect(try validate(try vouched.responseXML(assertion: try unsolicited.signedAssertion()), vouched).get().nameID == "alice@example.org")

        var failed = builder
        failed.status = "urn:oasis:names:tc:SAML:2.0:status:Requester"
        let withMessage = try failed.responseXML().replacingOccurrences(
            of: "</samlp:Status>", with: "<samlp:StatusMessage>Call +1 555 0100 to unlock your account</samlp:StatusMessage></samlp:Status>")
        guard case .failure(let rejection) = try validate(withMessage, failed) else { Issue.record("a failed status was accepted"); return }
        #expect(rejection.fromIdP && rejection.message.contains("Requester") && !rejection.message.contains("555"), "\(rejection.message)")

        // A comment in a group value would drop or split it; the signature does not cover comments.
        let commented = try builder.responseXML().replacingOccurrences(of: ">admins<", with: "><!-- x -->admins<")
        try refused(commented, builder, "comments or processing instructions")
        // A processing instruction is part of the canonical form, so it already breaks the signature.
        let instruction = try builder.responseXML().replacingOccurrences(of: ">admins<", with: "><?pi x?>admins<")
        try refused(instruction, builder, "does not verify")
    }

    @Test("tampering: NameID, attribute, signature removed, wrong certificate, SHA-1 unless allowed")
    func tampering() throws {
        let builder = SAMLResponseBuilder(now: now)
        let good = try builder.responseXML()
        try refused(good.replacingOccurrences(of: ">alice@example.org</saml:NameID>", with: ">mallory@example.org</saml:NameID>"),
                    builder, "does not verify")
        try refused(good.replacingOccurrences(of: ">staff<", with: ">root<"), builder, "does not verify")
        var unsigned = builder
        unsigned.signAssertion = false
        try refused(try unsigned.responseXML(), unsigned, "not signed")
        let signature = try #require(SAMLResponseBuilder.signatureRange(in: good))
        try refused(String(good[..<signature.lowerBound] + good[signature.upperBound...]), builder, "not signed")
        var foreign = builder
        foreign.key = .otherIdP
        try refused(try foreign.responseXML(), foreign, "does not verify")
        var sha1 = builder
        sha1.useSHA1 = true
        try refused(try sha1.responseXML(), sha1, "not allowed")
        let allowing = try SAMLResponseBuilder.validator(allowSHA1: true)
        #expect(try validate(try sha1.responseXML(), sha1, validator: allowing).get().nameID == "alice@example.org")
    }

    @Test("signature wrapping: moved assertion, second assertion, signed Response around an unsigned one, duplicate IDs, grafted signature, comment in NameID")
    func wrapping() throws {
        let builder = SAMLResponseBuilder(now: now)
        let signed = try builder.signedAssertion()
        var evil = builder
        evil.nameID = "mallory@example.org"
        evil.signAssertion = false
        evil.assertionID = "_assertion-evil"
        // 1. The genuine signed assertion hidden in an Extensions element, an unsigned one used.
        try refused(try builder.responseXML(assertion: "<samlp:Extensions>\(signed)</samlp:Extensions>" + evil.assertionXML),
                    builder, "not signed")
        // 2. A second assertion beside the signed one.
        try refused(try builder.responseXML(assertion: signed + evil.assertionXML), builder, "exactly one assertion")
        // 3. The evil assertion takes the genuine one's ID so the reference resolves to it: duplicate IDs refused.
        var sameID = evil
        sameID.assertionID = builder.assertionID
        try refused(try builder.responseXML(assertion: "<samlp:Extensions>\(signed)</samlp:Extensions>" + sameID.assertionXML),
                    builder, "share one ID")
        // 4. The genuine signature grafted into the evil assertion (its reference names another element).
        let signatureXML = String(signed[try #require(SAMLResponseBuilder.signatureRange(in: signed))])
        let graft = evil.assertionXML.replacingOccurrences(of: "</saml:Issuer>", with: "</saml:Issuer>" + signatureXML)
        try refused(try builder.responseXML(assertion: graft), builder, "")
        try refused(try builder.responseXML(assertion: "<samlp:Extensions>\(signed)</samlp:Extensions>" + graft), builder, "")
        // 5. A signed Response around an unsigned assertion: refused by default (wantAssertionsSigned).
        var outer = evil
        outer.signResponse = true
        try refused(try outer.responseXML(), outer, "assertion is not signed")
        // 6. Comment injection: the signature still verifies (c14n drops comments) but the NameID is refused.
        var longer = builder
        longer.nameID = "alice@example.org.evil.com"
        let commented = try longer.responseXML().replacingOccurrences(of: "alice@example.org.evil.com",
                                                                     with: "alice@example.org<!---->.evil.com")
        try refused(commented, longer, "comments or processing instructions")
    }

    @Test("conditions: audience, expiry, not yet valid, skew, InResponseTo, unsolicited, Destination, Recipient, status")
    func conditions() throws {
        func check(_ change: (inout SAMLResponseBuilder) -> Void, _ fragment: String) throws {
            var builder = SAMLResponseBuilder(now: now)
            change(&builder)
            try refused(try builder.responseXML(), builder, fragment)
        }
        try check({ $0.audience = "https://other-sp.example.org" }, "Audience")
        try check({ $0.notOnOrAfter = -61 }, "")
        try check({ $0.notBefore = 61 }, "not valid yet")
        try check({ $0.inResponseTo = "_someone-else" }, "different sign-in request")
        try check({ $0.inResponseTo = nil }, "Unsolicited")
        try check({ $0.destination = "https://evil.example.org/acs" }, "Destination")
        try check({ $0.recipient = "https://evil.example.org/acs" }, "bearer confirmation")
        try check({ $0.sessionNotOnOrAfter = -1 }, "already ended")
        var failed = SAMLResponseBuilder(now: now)
        failed.status = "urn:oasis:names:tc:SAML:2.0:status:Responder"
        guard case .failure(let rejection) = try validate(try failed.responseXML(), failed) else {
            Issue.record("a failed status was accepted")
            return
        }
        #expect(rejection.fromIdP)
        // Within the 60 s skew: accepted.
        var skewed = SAMLResponseBuilder(now: now)
        skewed.notBefore = 45
        #expect(throws: Never.self) { try validate(try skewed.responseXML(), skewed).get() }
    }

    @Test("hostile XML: DOCTYPE with entities, external entities, not XML, empty, oversized, not a Response")
    func hostileXML() throws {
        let builder = SAMLResponseBuilder(now: now)
        let good = try builder.responseXML()
        let cases = [
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>" + good,
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>",
            "not xml at all", "", String(repeating: "<a>", count: 200_000),
            "<samlp:AuthnRequest xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\"/>",
        ]
        for xml in cases {
            guard case .failure = try validate(xml, builder) else {
                Issue.record("accepted hostile XML: \(xml.prefix(60))")
                continue
            }
        }
    }
}
