// Passkeys in the browser: turns the server's JSON options into WebAuthn calls and
// the results back into JSON, with every binary field as base64url.
// No dependencies. Load it as a classic script; it defines two global functions:
//
//   const response = await registerPasskey(optionsFromServer);
//   await fetch(url, { method: "POST", body: JSON.stringify(response), ... });
//
//   const response = await signInWithPasskey(optionsFromServer);
//
// Both reject with the browser's DOMException (e.g. "NotAllowedError" when the user
// cancels or the ceremony times out); the caller decides what to show.
"use strict";

function base64urlToBuffer(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = base64 + "===".slice((base64.length + 3) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

function bufferToBase64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function credentialDescriptors(list) {
  return (list || []).map((c) => ({ ...c, id: base64urlToBuffer(c.id) }));
}

// options: PasskeyCreationOptions from the server.
async function registerPasskey(options) {
  const publicKey = {
    ...options,
    challenge: base64urlToBuffer(options.challenge),
    user: { ...options.user, id: base64urlToBuffer(options.user.id) },
    excludeCredentials: credentialDescriptors(options.excludeCredentials),
  };
  const credential = await navigator.credentials.create({ publicKey });
  const response = credential.response;
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: bufferToBase64url(response.clientDataJSON),
      attestationObject: bufferToBase64url(response.attestationObject),
      transports: typeof response.getTransports === "function" ? response.getTransports() : [],
    },
  };
}

// options: PasskeyRequestOptions from the server.
async function signInWithPasskey(options) {
  const publicKey = {
    ...options,
    challenge: base64urlToBuffer(options.challenge),
    allowCredentials: credentialDescriptors(options.allowCredentials),
  };
  const credential = await navigator.credentials.get({ publicKey });
  const response = credential.response;
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: bufferToBase64url(response.clientDataJSON),
      authenticatorData: bufferToBase64url(response.authenticatorData),
      signature: bufferToBase64url(response.signature),
      userHandle: response.userHandle ? bufferToBase64url(response.userHandle) : null,
    },
  };
}
