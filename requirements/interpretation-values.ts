// Generated from requirements/interpretations.json by requirements/emit-interpretation-values.ts: do not edit.
// requirements/test/interpretation-values.test.ts fails when this file is stale.
import type { FromSchema } from 'json-schema-to-ts';

/** The value of each open interpretation, by its profile key (`interpretations.<key>` of a target profile). */
export interface InterpretationValues {
  /** OI-1: Error for an unsupported grant type */
  unsupportedGrantError: "unsupported_grant_type" | "invalid_request";
  /** OI-2: Status of invalid_client for form-field credentials */
  invalidClientStatus: 400 | 401;
  /** OI-3: Scope values of a password-grant token */
  passwordScopes: FromSchema<{
    "type": "array",
    "minItems": 1,
    "uniqueItems": true,
    "items": {
      "type": "string",
      "pattern": "^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$"
    }
  }>;
  /** OI-4: Start of the 7-day refresh-token validity */
  refreshTokenAnchor: "access-token-expiry" | "access-token-issuance";
  /** OI-5: Answer to a token request whose body is not a form */
  nonFormTokenRequest: "invalid_request" | "415-000-1005";
  /** OI-6: A scope parameter on US client_credentials */
  usClientCredentialsScope: "ignored" | "invalid_scope";
  /** OI-7: A client_credentials client not registered with Data Services */
  unregisteredClient: "token-issued" | "unauthorized_client";
  /** OI-9: Password and refresh_token grants at the EU endpoint */
  euOtherGrants: "unsupported_grant_type" | "unauthorized_client" | "supported";
  /** OI-10: A username without the tenant_system_name\ prefix */
  usernameWithoutTenantError: "invalid_grant" | "invalid_request";
  /** OI-12: Answer to a token request with a method other than POST */
  nonPostTokenRequest: "405" | "invalid_request" | "404";
  /** OI-13: Error for a token request without client credentials */
  missingClientCredentialsError: "invalid_client" | "invalid_request";
  /** OI-14: Gateway codes: which the target produces, their triggers and HTTP statuses */
  gatewayCodes: FromSchema<{
    "type": "object",
    "properties": {
      "matching": {
        "enum": [
          "exact",
          "family"
        ],
        "description": "exact: each ERR-GW check expects its own code; family: any code of the same family (1xxx, 20xx, 21xx, 3xxx, 4xxx, 5xxx) passes."
      },
      "statuses": {
        "type": "object",
        "propertyNames": {
          "pattern": "^000-[0-9]{4}$"
        },
        "additionalProperties": {
          "type": "integer",
          "minimum": 400,
          "maximum": 599
        },
        "description": "Statuses that differ from the reference ones (schemas/gateway-error-codes.ts)."
      },
      "notProduced": {
        "type": "array",
        "uniqueItems": true,
        "items": {
          "enum": [
            "000-1000",
            "000-1001",
            "000-1002",
            "000-1003",
            "000-1004",
            "000-1005",
            "000-1010",
            "000-1100",
            "000-1101",
            "000-1200",
            "000-1201",
            "000-1202",
            "000-1205",
            "000-1208",
            "000-2000",
            "000-2001",
            "000-2100",
            "000-2101",
            "000-2102",
            "000-2110",
            "000-2111",
            "000-2112",
            "000-2120",
            "000-2121",
            "000-2122",
            "000-3000",
            "000-3010",
            "000-4000",
            "000-5000",
            "000-5001",
            "000-5002",
            "000-5003",
            "000-5004"
          ]
        },
        "description": "Codes the target never sends (000-1020 cannot be listed: §9 requires it). Each one's ERR-GW requirement is NOT_APPLICABLE, with this declaration quoted in the report. A declared list replaces the reference one ([\"000-1200\"]): list 000-1200 too unless the target sends it."
      },
      "triggers": {
        "type": "object",
        "properties": {
          "000-1000": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "get-with-body",
                "conflicting-content-length"
              ]
            }
          },
          "000-1001": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "missing-host",
                "unserved-host"
              ]
            }
          },
          "000-1002": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "asterisk-form",
                "absolute-form-foreign-host"
              ]
            }
          },
          "000-1010": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "bad-percent-escape",
                "encoded-nul",
                "dot-segment",
                "single-dot-segment",
                "encoded-dot-segment"
              ]
            }
          },
          "000-2100": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "accept-not-media-range"
              ]
            }
          },
          "000-2101": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "body-without-content-type"
              ]
            }
          },
          "000-2102": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "two-authorization-headers",
                "accept-excludes-json"
              ]
            }
          },
          "000-2110": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "query-bad-percent-escape"
              ]
            }
          },
          "000-2111": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "missing-required-query-parameter"
              ]
            }
          },
          "000-2112": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "wrong-type-query-parameter"
              ]
            }
          },
          "000-2120": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "truncated-json",
                "not-json"
              ]
            }
          },
          "000-2121": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "missing-required-member"
              ]
            }
          },
          "000-2122": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "wrong-type-member"
              ]
            }
          },
          "000-5001": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "malformed-identifier"
              ]
            }
          },
          "000-5002": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "deactivated-user",
                "deactivated-client"
              ]
            }
          },
          "000-5003": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "missing-identifier"
              ]
            }
          },
          "000-5004": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": true,
            "items": {
              "enum": [
                "unimplemented-route"
              ]
            }
          }
        },
        "additionalProperties": false,
        "description": "The triggers the target's gateway answers with each code, where the check picks the trigger (the spec names none): 000-1000 get-with-body (a GET with a body), conflicting-content-length; 000-1001 missing-host, unserved-host; 000-1002 asterisk-form (OPTIONS *), absolute-form-foreign-host; 000-1010 bad-percent-escape (%zz), encoded-nul (%00), dot-segment (/../), single-dot-segment (/./), encoded-dot-segment (%2e%2e); 000-2100 accept-not-media-range; 000-2101 body-without-content-type; 000-2102 two-authorization-headers, accept-excludes-json; 000-2110 query-bad-percent-escape; 000-2111 missing-required-query-parameter; 000-2112 wrong-type-query-parameter; 000-2120 truncated-json, not-json; 000-2121 missing-required-member; 000-2122 wrong-type-member; 000-5001 malformed-identifier; 000-5002 deactivated-user, deactivated-client; 000-5003 missing-identifier; 000-5004 unimplemented-route. A code listed here is judged as declared: each listed trigger must get the code (FAIL otherwise), and a check of a trigger the list leaves out is NOT_APPLICABLE, quoting it. A code not listed takes the reference triggers as an assumption: a check of one that does not get the code WARNs, naming this field."
      },
      "conditions": {
        "type": "object",
        "properties": {
          "nonBearerScheme": {
            "enum": [
              "000-1201",
              "000-1205"
            ],
            "description": "The code for an Authorization header with a scheme other than Bearer (ERR-GW-1201): no credentials (000-1201), or a credential that cannot be parsed (000-1205)."
          },
          "unknownToken": {
            "enum": [
              "000-1202",
              "000-1205"
            ],
            "description": "The code for a well-formed bearer token the target never issued (ERR-GW-1202): one that fails verification (000-1202), or one the target cannot parse as its own (000-1205)."
          },
          "perSecondLimit": {
            "enum": [
              "000-2001",
              "000-2000"
            ],
            "description": "The code for calls beyond the per-second spike limit (ERR-GW-2001): 000-2001, or the quota code 000-2000 for every rate limit."
          }
        },
        "additionalProperties": false,
        "description": "Where more than one code fits a condition, the code the target sends; an absent member takes the reference choice."
      }
    },
    "additionalProperties": false
  }>;
  /** OI-15: The previous access token after a refresh */
  accessTokenAfterRefresh: "valid-until-expiry" | "revoked";
  /** OI-23: Client credentials of one region at the other region's endpoint */
  crossRegionCredentials: "invalid_client" | "accepted";
  /** OI-24: EU access tokens at {base_url} */
  euTokensAtBaseUrl: "accepted" | "rejected";
  /** OI-25: Body format of a gateway error */
  gatewayErrorBody: "json-code-message" | "code-anywhere";
  /** OI-30: A form body with a malformed percent-escape or bytes that are not UTF-8 */
  malformedFormBody: "invalid_request" | "lenient";
  /** OI-31: A refresh asking for a scope value that was not originally granted */
  refreshScopeBeyondGrant: "invalid_scope" | "original-scope";
  /** OI-32: Error for a body client_id that names another client than HTTP Basic */
  clientIdMismatchError: "invalid_request" | "invalid_client";
}

export type InterpretationKey = keyof InterpretationValues;
