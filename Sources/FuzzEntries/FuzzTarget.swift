import Foundation

/// The parsers that face the internet (or an operator's hand-edited files), each as a function of
/// raw bytes, for libFuzzer (`scripts/fuzz/run.sh`, docs/fuzzing.md) and for the corpus replay
/// test that runs the checked-in seeds and past findings on every `swift test`.
///
/// A target never throws: refusing input is the expected outcome. It stops the process (a finding)
/// when the code under test traps or when a property it states does not hold.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A compact JWS (ID token, request object, software statement shape) against a fixed key set.
    case jws
    /// A JWK set, then a fixed token verified against every key it yields.
    case jwks
    /// A software statement: the raw JWT, or the input signed as its payload so claims are reached.
    case softwareStatement = "software-statement"
    /// An `application/x-www-form-urlencoded` body or query string; decoding round-trips.
    case form
    /// A JSON request body as the token, PAR and registration endpoints read it.
    case json
    /// One `console-config/` YAML file, loaded and checked as `idconnect config check` does.
    case config
    /// A user name put into an LDAP filter and DN: the escaped value never changes their structure.
    case ldapFilter = "ldap-filter"
    /// A redirect URI as registration checks it and as the broker appends parameters to it.
    case redirectURI = "redirect-uri"
    /// A User-Agent header as the QR-login info and the account page read it.
    case userAgent = "user-agent"
    /// An AuthLink service's answer (status and body).
    case authLink = "authlink"
    /// A SAML Response through the ACS checks: parse, signature, conditions, decryption.
    case samlResponse = "saml-response"
    /// An `EncryptedAssertion` through XML decryption with the SP key alone.
    case samlDecrypt = "saml-decrypt"

    /// Runs the target on one input.
    public func run(_ data: Data) {
        switch self {
        case .jws: JOSEFuzzing.jws(data)
        case .jwks: JOSEFuzzing.jwks(data)
        case .softwareStatement: JOSEFuzzing.softwareStatement(data)
        case .form: ParameterFuzzing.form(data)
        case .json: ParameterFuzzing.json(data)
        case .config: ConfigFuzzing.config(data)
        case .ldapFilter: LDAPFuzzing.filterAndDN(data)
        case .redirectURI: ClientInputFuzzing.redirectURI(data)
        case .userAgent: ClientInputFuzzing.userAgent(data)
        case .authLink: ClientInputFuzzing.authLinkAnswer(data)
        case .samlResponse: SAMLFuzzEntries.response(data)
        case .samlDecrypt: SAMLFuzzEntries.decrypt(data)
        }
    }

    /// The largest input worth trying: a bit above what the broker itself accepts, so the size
    /// limits are exercised without the fuzzer wasting time on megabytes.
    public var maxLength: Int {
        switch self {
        case .samlResponse, .samlDecrypt: 64 * 1024
        case .config: 16 * 1024
        case .jws, .jwks, .softwareStatement, .json, .form: 20 * 1024
        default: 4 * 1024
        }
    }
}

/// States a property of the code under test; a violation stops the process with `message` so
/// libFuzzer records the input as a finding.
@inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property violated: \(message())") }
}
