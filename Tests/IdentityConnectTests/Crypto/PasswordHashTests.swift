import StaticConnector
import Testing

@Suite("PHC password hashes (docs/connectors/static.md, \"Password hashes\")")
struct PasswordHashTests {
    // Computed with Python's hashlib, an independent implementation.
    static let pbkdf2 = "$pbkdf2-sha256$i=10000$c2FsdHNhbHRzYWx0MTIzNA$y+5YSylvLxd2vcvpVRpvESiCmo94wwW2RTZdp23Pum4"
    static let scrypt = "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0MTIzNA$sBRFYJxJyR9gnQuMQio24Q6ZTaugiqeT1tSTvyCASoM"

    @Test("known PBKDF2-SHA256 and scrypt hashes verify; wrong passwords do not")
    func knownVectors() throws {
        for text in [Self.pbkdf2, Self.scrypt] {
            let hash = try PasswordHash(phc: text)
            #expect(hash.verify("correct horse"))
            #expect(!hash.verify("correct horsf"))
            #expect(!hash.verify(""))
        }
    }

    @Test("hash-password output round-trips")
    func roundTrip() throws {
        let text = try PasswordHash.pbkdf2(password: "pässwörd 🙂", iterations: 10_000)
        #expect(text.hasPrefix("$pbkdf2-sha256$i=10000$"))
        #expect(try PasswordHash(phc: text).verify("pässwörd 🙂"))
    }

    @Test("malformed and weak hashes are refused with a reason", arguments: [
        "plain", "$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0MTIzNA$y+5YSylvLxd2vcvpVRpvESiCmo94wwW2RTZdp23Pum4",
        "$pbkdf2-sha256$i=abc$c2FsdA$AAAA", "$md5$x$y$z", "$scrypt$ln=40,r=8,p=1$c2FsdHNhbHRzYWx0MTIzNA$sBRFYJxJyR9gnQuMQio24Q",
        "$pbkdf2-sha256$i=10000$!!!$y+5YSylvLxd2vcvpVRpvESiCmo94wwW2RTZdp23Pum4", "$pbkdf2-sha256$i=10000$c2FsdA$AAAA",
        "$pbkdf2-sha256$i=10000$c2FsdHNhbHRzYWx0MTIzNA==$y+5YSylvLxd2vcvpVRpvESiCmo94wwW2RTZdp23Pum4",
    ])
    func refused(_ text: String) {
        #expect(throws: PasswordHashError.self) { try PasswordHash(phc: text) }
    }
}
