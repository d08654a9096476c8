// What other features may use of the sub-accounts feature: a sub-account's name.
export { subAccountName } from './sub-accounts-service';
