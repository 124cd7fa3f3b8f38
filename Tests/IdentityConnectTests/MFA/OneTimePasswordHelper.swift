import Foundation
import OneTimePassword

enum OneTimePasswordHelper {
    static func code(_ secret: [UInt8], at date: Date, offset: Int64 = 0) -> String {
        let totp = TOTP(secret: secret)
        return totp.code(step: totp.step(at: date) + offset)
    }
}
