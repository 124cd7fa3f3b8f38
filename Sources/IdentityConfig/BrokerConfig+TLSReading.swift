import Foundation
import IdentityCore

extension BrokerConfigReader {
    /// The `server.tls` section: `certificate` and `key`, both required PEM text, checked as a
    /// pair (parsable, the key belongs to the first certificate). A problem is reported at the key
    /// path of the value at fault, so `config check` names `server.tls.key` for a mismatched key.
    func readTLS(_ reader: ConfigReader) -> TLSSettings? {
        let certificateNode = reader.raw("certificate", required: true)
        let keyNode = reader.raw("key", required: true)
        guard let certificateNode, let keyNode else { return nil }
        guard let certificate = certificateNode.scalar, let key = keyNode.scalar else {
            for node in [certificateNode, keyNode] where node.scalar == nil {
                reader.problems.add(node, "must be PEM text (usually ${file:/path/to.pem}), found \(node.kindName)")
            }
            return nil
        }
        let certificateSource = ConfigProblem(location: certificateNode.location, keyPath: certificateNode.keyPath, reason: "")
        let keySource = ConfigProblem(location: keyNode.location, keyPath: keyNode.keyPath, reason: "")
        do {
            _ = try TLSMaterial.check(certificateChain: certificate, privateKey: key)
        } catch let problem as TLSMaterial.Problem {
            reader.problems.add(problem.aboutKey ? keyNode : certificateNode, problem.description)
            return nil
        } catch {
            reader.problems.add(certificateNode, "\(error)")
            return nil
        }
        return TLSSettings(certificateChain: certificate, privateKey: key,
                           certificateSource: certificateSource, keySource: keySource)
    }
}
