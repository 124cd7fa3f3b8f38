import BuildInfo
import Foundation
import OAuthEngine

/// What `serve` prints once it listens: where, as what issuer, on which storage, and which auth
/// services each environment offers (with the connector type), so a person starting the broker
/// sees at a glance what they started. Plain text on standard output; the structured `starting`
/// log line carries the same facts for machines.
public enum StartupSummary {
    public static func text(_ prepared: PreparedBroker, listening: String) -> String {
        let state = prepared.engine.state
        var lines = [
            "Identity Connect is listening on \(listening)",
            "  version  \(BuildInfo.summary)",
            "  issuer   \(prepared.settings.issuer)",
            "  storage  \(prepared.settings.storage.redacted)",
        ]
        if let file = state.config.server.audit.file { lines.append("  audit    \(file)") }
        if let tls = prepared.tls { lines.append("  tls      \(tls.settings.certificateSummary)") }
        let environments = state.directory.environments.sorted { $0.key < $1.key }
        if environments.isEmpty { lines.append("  no environments configured: nobody can sign in") }
        for (appKey, entry) in environments {
            lines.append("  environment \(appKey)")
            for (id, service) in entry.services.sorted(by: { $0.key < $1.key }) {
                let isDefault = entry.defaultService?.service.id == id ? ", default" : ""
                lines.append("    \(id) (\(service.service.provider.type)\(isDefault))")
            }
        }
        lines.append("  discovery \(prepared.settings.issuer)/.well-known/openid-configuration")
        return lines.joined(separator: "\n")
    }
}
