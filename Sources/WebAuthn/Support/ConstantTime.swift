/// Byte comparison whose running time does not depend on where two equal-length
/// inputs first differ, so comparing a secret (the single-use challenge) leaks
/// nothing through timing. Inputs of different lengths compare unequal at once:
/// lengths are not secret.
enum ConstantTime {
    static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
