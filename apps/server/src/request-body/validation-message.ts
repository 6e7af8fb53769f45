// The message is part of the API's behaviour, shared with the client's fake server: it lives in the contract.
export { describeValidationError } from "@plant-store/contract/wire";
