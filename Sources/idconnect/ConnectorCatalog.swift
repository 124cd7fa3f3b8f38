import AuthLinkConnector
import IdentityCore
import LDAPConnector
import OAuthConnectors
import SAMLConnector
import SAMLWrapConnector
import StaticConnector

/// Every connector this build ships, registered by provider type. The core imports none of them.
enum ConnectorCatalog {
    static var registry: ConnectorRegistry {
        ConnectorRegistry([StaticConnectorFactory(), AuthLinkConnectorFactory(), SAMLWrapConnectorFactory(),
                           OAuthConnectorFactory(), LDAPConnectorFactory(), SAMLConnectorFactory()])
    }
}
