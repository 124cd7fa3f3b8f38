/// Labels and values of the COSE_Key map (RFC 9052 §7, RFC 9053 §7, RFC 8230 §4).
enum COSEKeyLabel {
    static let keyType = 1
    static let algorithm = 3
    /// EC2 curve, or RSA modulus `n` (the label is shared; its meaning depends on kty).
    static let curveOrModulus = -1
    /// EC2 x coordinate, or RSA public exponent `e`.
    static let xOrExponent = -2
    /// EC2 y coordinate.
    static let y = -3
}

enum COSEKeyType {
    static let ec2 = 2
    static let rsa = 3
}

enum COSECurve {
    static let p256 = 1
}
