import { App } from 'cdktf';
import { LocalStack } from './stack';

const app = new App();
new LocalStack(app, 'local');
app.synth();
