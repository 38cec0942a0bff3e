package import Auth

extension EnvironmentReader {
    /// The calling service's name, sent with its secret on internal calls to other services.
    package static let serviceNameVariable = "RV_SERVICE_NAME"
    /// The calling service's secret (see `ServiceCredential`).
    package static let serviceSecretVariable = "RV_SERVICE_SECRET"
    /// The callers a service accepts on its internal methods (see `ServiceCredentials`).
    package static let serviceCredentialsVariable = "RV_SERVICE_CREDENTIALS"

    /// This service's own credential for calling other services' internal methods
    /// (`RV_SERVICE_NAME` and `RV_SERVICE_SECRET`, both or neither); nil when neither is set.
    package func serviceCredential() throws(ConfigurationError) -> ServiceCredential? {
        let name = self[Self.serviceNameVariable]
        let secret = self[Self.serviceSecretVariable]
        switch (name, secret) {
        case (nil, nil):
            return nil
        case (nil, _):
            throw ConfigurationError(variable: Self.serviceNameVariable, message: "must be set with \(Self.serviceSecretVariable)")
        case (_, nil):
            throw ConfigurationError(variable: Self.serviceSecretVariable, message: "must be set with \(Self.serviceNameVariable)")
        case (let name?, let secret?):
            guard ServiceCredential.isValidName(name) else {
                throw ConfigurationError(variable: Self.serviceNameVariable,
                                         message: "must be 1-63 characters of a-z, 0-9, - and _, starting with a letter")
            }
            do {
                return try ServiceCredential(name: name, secret: secret)
            } catch {
                throw ConfigurationError(variable: Self.serviceSecretVariable, message: error.message)
            }
        }
    }

    /// The callers accepted on this service's internal methods (`RV_SERVICE_CREDENTIALS`);
    /// none when unset, so every internal call is refused.
    package func acceptedServiceCredentials() throws(ConfigurationError) -> ServiceCredentials {
        guard let text = self[Self.serviceCredentialsVariable] else { return ServiceCredentials() }
        do {
            return try ServiceCredentials(parsing: text)
        } catch {
            throw ConfigurationError(variable: Self.serviceCredentialsVariable, message: error.message)
        }
    }
}
