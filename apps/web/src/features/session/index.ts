// What other features may use of the session feature besides its api/ folder.
export { SecondFactorChoices } from './components/second-factor-choices';
export { useSessionPoll } from './components/use-session-poll';
export { askForFactor, isSteppedUp, ssoStartUrl, ssoStepUpUrl } from './step-up';
