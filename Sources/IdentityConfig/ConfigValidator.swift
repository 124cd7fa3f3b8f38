import IdentityCore

/// Checks that need the whole configuration: unique ids, references that must resolve,
/// storage URLs this build understands (docs/configuration.md).
struct ConfigValidator {
    let problems: ProblemSink

    func validate(_ config: BrokerConfig, root: ConfigNode, supportedStorageSchemes: Set<String>) {
        checkStorage(config, root: root, supportedStorageSchemes: supportedStorageSchemes)
        checkVault(config, root: root)
        let organizations = checkOrganizations(config)
        checkEnvironments(config, organizations: organizations)
        checkAllowedScopes(config, organizations: organizations)
    }

    /// `allowedScopes` name API scopes that the environment, or its organization, declares (for an
    /// organization's auth service: the organization or one of its environments).
    private func checkAllowedScopes(_ config: BrokerConfig, organizations: [String: Organization]) {
        func check(_ services: [AuthService], declared: Set<String>) {
            for service in services {
                for scope in service.allowedScopes ?? [] where !declared.contains(scope) {
                    problems.add(ConfigProblem(location: service.location, keyPath: "\(service.keyPath).allowedScopes",
                                               reason: "'\(scope)' is not declared in apiResources"))
                }
            }
        }
        for environment in config.environments {
            let organizationScopes = environment.organization.flatMap { organizations[$0] }?.apiResources.map(\.scope) ?? []
            check(environment.authServices, declared: Set(environment.apiResources.map(\.scope) + organizationScopes))
        }
        for organization in organizations.values {
            let environmentScopes = config.environments.filter { $0.organization == organization.id }.flatMap(\.apiResources).map(\.scope)
            check(organization.authServices, declared: Set(organization.apiResources.map(\.scope) + environmentScopes))
        }
    }

    private func at(_ node: ConfigNode?, fallback: ConfigNode, _ reason: String) {
        problems.add(node ?? fallback, reason)
    }

    private func checkStorage(_ config: BrokerConfig, root: ConfigNode, supportedStorageSchemes: Set<String>) {
        guard let storage = config.storage, !storage.isEmpty else { return }
        let scheme = storage.split(separator: ":", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
        if !["sqlite", "postgres", "postgresql"].contains(scheme) {
            at(root["storage"], fallback: root, "must be sqlite:PATH or postgres://user:pass@host:port/db")
        } else if !supportedStorageSchemes.contains(scheme) {
            at(root["storage"], fallback: root, "storage '\(scheme)' is not available in this build")
        }
    }

    private func checkVault(_ config: BrokerConfig, root: ConfigNode) {
        guard let keys = config.vaultKeys else { return }
        if keys.isEmpty, let node = root["vault"] { problems.add(node, "vault.keys must list at least one key") }
        var seen: Set<String> = []
        for key in keys where !seen.insert(key.id).inserted {
            at(root["vault"], fallback: root, "duplicate vault key id '\(key.id)'")
        }
    }

    /// What `tokenExchange` promises that its connector must keep (docs/token-exchange.md).
    private func checkTokenExchange(_ service: AuthService) {
        guard let exchange = service.tokenExchange else { return }
        func problem(_ key: String, _ reason: String) {
            problems.add(ConfigProblem(location: service.location, keyPath: "\(service.keyPath).tokenExchange.\(key)", reason: reason))
        }
        if exchange.upstreamTokens && !["oauth2", "openid-connect"].contains(service.provider.type) {
            problem("upstreamTokens", "only oauth2 and openid-connect auth services take their identity source's tokens")
        }
        if !exchange.upstreamAudiences.isEmpty && !exchange.upstreamTokens {
            problem("upstreamAudiences", "means nothing without upstreamTokens: true")
        }
    }

    private func checkAuthServices(_ services: [AuthService], scope: String) {
        var seen: [String: AuthService] = [:]
        for service in services {
            checkTokenExchange(service)
            if let first = seen[service.id] {
                problems.add(ConfigProblem(location: service.location, keyPath: "\(service.keyPath).id",
                                           reason: "duplicate auth service id '\(service.id)' in \(scope) (first at \(first.location))"))
            } else {
                seen[service.id] = service
            }
        }
    }

    private func checkOrganizations(_ config: BrokerConfig) -> [String: Organization] {
        var byId: [String: Organization] = [:]
        for organization in config.organizations {
            if byId[organization.id] != nil {
                problems.add(ConfigProblem(location: organization.location, keyPath: "\(organization.keyPath).id",
                                           reason: "duplicate organization id '\(organization.id)'"))
            }
            byId[organization.id] = organization
            checkAuthServices(organization.authServices, scope: "organization \(organization.id)")
        }
        return byId
    }

    private func checkEnvironments(_ config: BrokerConfig, organizations: [String: Organization]) {
        var appKeys: Set<String> = []
        for environment in config.environments {
            let path = environment.keyPath
            let location = environment.location
            func report(_ key: String, _ reason: String) {
                problems.add(ConfigProblem(location: location, keyPath: "\(path).\(key)", reason: reason))
            }
            if !appKeys.insert(environment.appKey).inserted {
                report("appKey", "duplicate appKey '\(environment.appKey)'")
            }
            checkAuthServices(environment.authServices, scope: "environment \(environment.appKey)")
            var organizationServices: [AuthService] = []
            if let organizationId = environment.organization {
                if let organization = organizations[organizationId] {
                    organizationServices = organization.authServices
                } else {
                    report("organization", "organization '\(organizationId)' is not defined")
                }
            }
            let visible = Set(environment.authServices.map(\.id)).union(organizationServices.map(\.id))
            if let defaultId = environment.defaultAuthService, !visible.contains(defaultId) {
                report("defaultAuthService", "'\(defaultId)' is not an auth service of this environment or its organization")
            }
            if visible.isEmpty { report("authServices", "the environment has no auth service") }
            var linkNames: Set<String> = []
            for link in environment.dataLinks {
                if !linkNames.insert(link.name).inserted { report("dataLinks", "duplicate data link name '\(link.name)'") }
                for service in link.authServices ?? [] where !visible.contains(service) {
                    report("dataLinks", "data link '\(link.name)' names unknown auth service '\(service)'")
                }
            }
            let audiences = Set((environment.apiResources + (environment.organization.flatMap { organizations[$0] }?.apiResources ?? []))
                .map(\.audience))
            for service in environment.authServices {
                guard let exchange = service.tokenExchange else { continue }
                func problem(_ key: String, _ reason: String) {
                    problems.add(ConfigProblem(location: service.location, keyPath: "\(service.keyPath).tokenExchange.\(key)", reason: reason))
                }
                for link in exchange.dataLinks where !linkNames.contains(link) {
                    problem("dataLinks", "'\(link)' is not a data link of this environment")
                }
                for audience in exchange.audiences where !audiences.contains(audience) {
                    problem("audiences", "'\(audience)' is not the audience of one of the environment's apiResources")
                }
                for actor in exchange.actors {
                    let parts = actor.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    if parts.first != environment.appKey || (parts.count == 2 && !visible.contains(parts[1])) {
                        problem("actors", "'\(actor)' is not a client id of this environment (appKey or appKey.authServiceId)")
                    }
                }
            }
            if let registration = environment.registration, registration.initialAccessTokens.isEmpty {
                report("registration.initialAccessTokens", "must list at least one token")
            }
        }
    }
}
