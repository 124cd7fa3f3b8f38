import Foundation

/// What the targets see, for tests that check the seeds are good starting points (a seed the
/// parser refuses at once teaches the fuzzer little).
public enum FuzzProbe {
    /// The NameID the ACS checks accept in `xml`, nil when they refuse it.
    public static func samlAccepted(_ xml: Data) -> String? { SAMLFuzzEntries.fuzzing.acceptedNameID(xml) }

    /// The local name of what decrypting the document's EncryptedAssertion gives, nil when it fails.
    public static func samlDecrypted(_ xml: Data) -> String? { SAMLFuzzEntries.fuzzing.decryptedElementName(xml) }
}
